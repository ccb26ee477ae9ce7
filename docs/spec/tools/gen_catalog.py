#!/usr/bin/python3
"""Extract the clause catalog from docs/spec/metaroce.md (+ pics.md) into clauses.json.

    /usr/bin/python3 docs/spec/tools/gen_catalog.py            # rewrite docs/spec/clauses.json
                                                               # (and the key lists of
                                                               # schema/pics|pixit.schema.json)
    /usr/bin/python3 docs/spec/tools/gen_catalog.py --stdout   # print it instead

metaroce.md is the single source of truth; clauses.json is generated and checked by
check_spec.py. The clause line format is documented in metaroce.md section 1.2 and the
JSON format in docs/spec/catalog-schema.md. Standard library only.
"""
import json
import os
import re
import sys

SCHEMA_VERSION = 1
LEVELS = ("MUST", "SHOULD", "MAY", "MUST-IF")
VERIFY = ("wire", "agent", "counters", "timing")
ROLES = ("requester", "responder", "both", "notification-point", "reaction-point")
AREAS = {
    "WF": "base", "IC": "base", "PS": "base", "AK": "base", "RT": "base", "RN": "base",
    "RD": "base", "AT": "base", "MP": "base", "QS": "base", "CC": "base", "UC": "base",
    "UD": "base", "CQ": "base",
    "EX": "ext", "MU": "ext", "SA": "ext", "NK": "ext", "TR": "ext", "OO": "ext",
    "PF": "ext", "SC": "ext",
    "NF": "ext", "SE": "ext", "CR": "ext",
}
ID_RE = re.compile(r"^MR-([A-Z]{2})-(\d{2})$")
KEY_RE = re.compile(r"^[a-z][a-z0-9]*(\.[a-z0-9_]+)*$")
PARAM_RE = re.compile(r"\b[TNBRV]_[A-Z0-9]+(?:_[A-Z0-9]+)*\b")
REF_RE = re.compile(r"\[(S\d+)\]")
CLAUSE_START = re.compile(r"^\*\*(MR-[^*]*)\*\*")
CLAUSE_RE = re.compile(
    r"^\*\*(?P<id>[^*]+)\*\* "
    r"\[(?P<level>[^\]]*)\] "
    r"\{(?P<verify>[^}]*)\} "
    r"\((?P<meta>[^)]*(?:\([^)]*\)[^)]*)*)\) "
    r"(?P<statement>.+)$")
EXAMPLE_RE = re.compile(r"^```packet(?P<info>.*)$")
HEXLINE_RE = re.compile(r"^([0-9a-f]{4})  ((?:[0-9a-f]{2} ){0,15}[0-9a-f]{2})$")


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Error:
    """One problem, printed as FILE[:LINE]: [ID: ]field FIELD: message."""

    def __init__(self, path, line, field, message, ident=None):
        self.path, self.line, self.field, self.message, self.ident = (
            path, line, field, message, ident)

    def __str__(self):
        where = self.path + (":%d" % self.line if self.line else "")
        who = (self.ident + ": ") if self.ident else ""
        return "%s: %sfield %s: %s" % (where, who, self.field, self.message)


def tokenize_pics(expr):
    tokens = re.findall(r"\s*(&&|\|\||!|\(|\)|[A-Za-z0-9_.]+|\S)", expr)
    return [t for t in tokens if t]


def parse_pics(expr):
    """Parse a PICS expression; return (set of keys, error message or None, tree).

    Grammar: or := and ('||' and)*; and := unary ('&&' unary)*;
    unary := '!' unary | '(' or ')' | key. The tree is ("key", k), ("not", t),
    ("and", [t...]) or ("or", [t...]); it is None when there is an error.
    """
    tokens = tokenize_pics(expr)
    pos = [0]
    keys = set()

    def peek():
        return tokens[pos[0]] if pos[0] < len(tokens) else None

    def take():
        pos[0] += 1
        return tokens[pos[0] - 1]

    def unary():
        tok = peek()
        if tok is None:
            raise ValueError("unexpected end of expression")
        if tok == "!":
            take()
            return ("not", unary())
        if tok == "(":
            take()
            tree = disjunction()
            if peek() != ")":
                raise ValueError("missing ')'")
            take()
            return tree
        if KEY_RE.match(tok):
            keys.add(take())
            return ("key", tok)
        raise ValueError("unexpected token %r" % tok)

    def conjunction():
        terms = [unary()]
        while peek() == "&&":
            take()
            terms.append(unary())
        return terms[0] if len(terms) == 1 else ("and", terms)

    def disjunction():
        terms = [conjunction()]
        while peek() == "||":
            take()
            terms.append(conjunction())
        return terms[0] if len(terms) == 1 else ("or", terms)

    try:
        tree = disjunction()
        if peek() is not None:
            raise ValueError("unexpected token %r" % peek())
    except ValueError as exc:
        return keys, str(exc), None
    return keys, None, tree


def eval_pics(expr, features):
    """Evaluate a PICS expression against a {key: bool} map; undefined keys are false.
    Returns None when the expression does not parse."""
    _, err, tree = parse_pics(expr)
    if err:
        return None

    def ev(t):
        if t[0] == "key":
            return features.get(t[1]) is True
        if t[0] == "not":
            return not ev(t[1])
        vals = [ev(x) for x in t[1]]
        return all(vals) if t[0] == "and" else any(vals)
    return ev(tree)


def split_table_row(line):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return [c.strip("`") for c in cells]


def parse_pics_md(path, errors):
    """pics.md: the table rows `| key | requires | meaning |` under '## Feature keys'."""
    feats = []
    in_table = False
    for n, line in enumerate(read_text(path).split("\n"), 1):
        line = line.rstrip("\n")
        if line.startswith("## "):
            in_table = line.startswith("## Feature keys")
            continue
        if not in_table or not line.startswith("|"):
            continue
        cells = split_table_row(line)
        if len(cells) < 3 or cells[0] in ("Key",) or set(cells[0]) <= set("-: "):
            continue
        key, req, meaning = cells[0], cells[1], "|".join(cells[2:]).strip()
        if not KEY_RE.match(key):
            errors.append(Error(path, n, "key", "malformed feature key %r" % key))
            continue
        requires = [r.strip().strip("`") for r in req.split(",") if r.strip() not in ("", "-")]
        feats.append({"key": key, "requires": requires, "meaning": meaning, "_line": n})
    return feats


def parse_spec(path, errors):
    """Return (spec_version, clauses, parameters, references, examples, retired)."""
    spec_version = None
    clauses, params, refs, examples, retired = [], [], [], [], []
    part = None
    section = None
    heading_is = None
    in_fence = False
    lines = read_text(path).split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        n = i + 1
        i += 1
        if line.startswith("```") and not EXAMPLE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = re.match(r"^Spec version: (\S+)$", line)
        if m:
            spec_version = m.group(1)
        if line.startswith("#") and not line.startswith("#!"):
            title = line.lstrip("#").strip()
            if line.startswith("# "):
                if title.startswith("Part II."):
                    part = "ext"
                elif title.startswith("Part I."):
                    part = "base"
                else:
                    part = None
            section = title
            heading_is = ("params" if re.match(r"^\d+\. Parameters$", title) else
                          "refs" if re.match(r"^\d+\. References$", title) else
                          "retired" if re.match(r"^\d+\.\d+ Retired clause ids$", title)
                          else None)
            continue
        if heading_is and line.startswith("|"):
            cells = split_table_row(line)
            if cells[0] in ("Name", "Key", "Id") or set(cells[0]) <= set("-: "):
                continue
            if heading_is == "retired":
                if len(cells) != 4:
                    errors.append(Error(path, n, "retired", "row needs 4 cells"))
                    continue
                ident, rev, repl, reason = cells
                row = {"id": ident, "revision": None,
                       "replaced_by": [r.strip() for r in repl.split(",")
                                       if r.strip() not in ("", "-")],
                       "reason": reason, "_line": n}
                if not ID_RE.match(ident):
                    errors.append(Error(path, n, "id", "malformed retired id %r" % ident))
                try:
                    row["revision"] = int(rev)
                except ValueError:
                    errors.append(Error(path, n, "revision", "%s is not a number" % rev, ident))
                retired.append(row)
                continue
            if heading_is == "params":
                if len(cells) != 6:
                    errors.append(Error(path, n, "parameters", "row needs 6 cells"))
                    continue
                name, default, unit, lo, hi, meaning = cells
                row = {"name": name, "default": None, "unit": unit, "min": None, "max": None,
                       "meaning": meaning}
                if not PARAM_RE.fullmatch(name):
                    errors.append(Error(path, n, "name", "malformed parameter name %r" % name))
                for k, v in (("default", default), ("min", lo), ("max", hi)):
                    try:
                        row[k] = int(v) if re.fullmatch(r"-?\d+", v) else float(v)
                    except ValueError:
                        errors.append(Error(path, n, k, "%s is not a number" % v, name))
                row["_line"] = n
                params.append(row)
            else:
                refs.append({"key": cells[0], "source": cells[1] if len(cells) > 1 else ""})
            continue
        m = EXAMPLE_RE.match(line)
        if m:
            info = dict(kv.split("=", 1) for kv in m.group("info").split() if "=" in kv)
            start = n
            hexbytes = []
            while i < len(lines) and lines[i] != "```":
                hm = HEXLINE_RE.match(lines[i])
                if not hm or int(hm.group(1), 16) != len(hexbytes):
                    errors.append(Error(path, i + 1, "hex", "bad dump line %r" % lines[i],
                                        info.get("id")))
                else:
                    hexbytes.extend(hm.group(2).split())
                i += 1
            i += 1
            examples.append({"id": info.get("id"), "layer": info.get("layer"),
                             "section": section, "hex": "".join(hexbytes), "_line": start})
            continue
        if CLAUSE_START.match(line):
            c = parse_clause_line(path, n, line, errors)
            if c is not None:
                c["part_found"] = part
                c["section"] = section
                clauses.append(c)
    return spec_version, clauses, params, refs, examples, retired


def parse_clause_line(path, n, line, errors):
    ident = CLAUSE_START.match(line).group(1)
    m = CLAUSE_RE.match(line)
    if not m:
        # Say which field is missing or malformed.
        rest = line[len(ident) + 5:]
        field = ("level" if not re.match(r"^\[[^\]]*\] ", rest) else
                 "verify" if not re.match(r"^\[[^\]]*\] \{[^}]*\} ", rest) else
                 "metadata" if not re.match(r"^\[[^\]]*\] \{[^}]*\} \(.*\) \S", rest) else
                 "statement")
        errors.append(Error(path, n, field, "missing or malformed (see section 1.2)", ident))
        return None
    meta = {}
    for part in m.group("meta").split("; "):
        if ": " not in part:
            errors.append(Error(path, n, "metadata", "item %r is not 'name: value'" % part,
                                ident))
            continue
        k, v = part.split(": ", 1)
        meta[k.strip()] = v.strip()
    statement = m.group("statement").strip()
    c = {
        "id": ident,
        "area": None,
        "part": None,
        "level": m.group("level"),
        "statement": statement,
        "verify": [v.strip() for v in m.group("verify").split(",") if v.strip()],
        "pics": meta.get("pics"),
        "role": meta.get("role"),
        "source": meta.get("source"),
        "section": None,
        "params": sorted(set(PARAM_RE.findall(statement))),
        "_line": n,
    }
    im = ID_RE.match(ident)
    if im:
        c["area"] = im.group(1)
        c["part"] = AREAS.get(im.group(1))
    for k in meta:
        if k not in ("pics", "role", "source"):
            errors.append(Error(path, n, k, "unknown metadata item", ident))
    return c


def build(spec_dir, errors):
    md = os.path.join(spec_dir, "metaroce.md")
    pics_md = os.path.join(spec_dir, "pics.md")
    version, clauses, params, refs, examples, retired = parse_spec(md, errors)
    feats = parse_pics_md(pics_md, errors)
    for c in clauses:
        if c["part_found"] and c["part"] and c["part_found"] != c["part"]:
            errors.append(Error(md, c["_line"], "part", "area %s belongs to part %s but the "
                                "clause is in part %s" % (c["area"], c["part"],
                                                          c["part_found"]), c["id"]))
    catalog = {
        "schema_version": SCHEMA_VERSION,
        "spec_version": version,
        "clauses": [{k: v for k, v in c.items() if not k.startswith("_") and k != "part_found"}
                    for c in clauses],
        "pics_features": [{k: v for k, v in f.items() if not k.startswith("_")}
                          for f in feats],
        "parameters": [{k: v for k, v in p.items() if not k.startswith("_")} for p in params],
        "references": refs,
        "examples": [{k: v for k, v in e.items() if not k.startswith("_")} for e in examples],
        "retired": [{k: v for k, v in r.items() if not k.startswith("_")} for r in retired],
    }
    located = {"clauses": clauses, "pics_features": feats, "parameters": params,
               "examples": examples, "retired": retired, "md": md, "pics_md": pics_md}
    return catalog, located


def dumps(catalog):
    return json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"


def synced_schemas(spec_dir, catalog):
    """Return {path: text} of schema/pics.schema.json and schema/pixit.schema.json with
    their feature-key and parameter lists taken from the catalog (the rest of each schema
    is hand-written and kept as it is)."""
    out = {}
    path = os.path.join(spec_dir, "schema", "pics.schema.json")
    schema = json.loads(read_text(path))
    keys = [f["key"] for f in catalog["pics_features"]]
    feats = schema["properties"]["features"]
    feats["required"] = keys
    feats["properties"] = {k: {"type": "boolean"} for k in keys}
    out[path] = json.dumps(schema, indent=2) + "\n"
    path = os.path.join(spec_dir, "schema", "pixit.schema.json")
    schema = json.loads(read_text(path))
    prm = schema["properties"]["parameters"]
    prm["required"] = [p["name"] for p in catalog["parameters"]]
    prm["properties"] = {
        p["name"]: {"type": "number", "minimum": p["min"], "maximum": p["max"],
                    "description": "%s (%s, default %s)" % (p["meaning"], p["unit"],
                                                              p["default"])}
        for p in catalog["parameters"]}
    out[path] = json.dumps(schema, indent=2) + "\n"
    return out


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    spec_dir = os.path.normpath(os.path.join(here, ".."))
    errors = []
    catalog, _ = build(spec_dir, errors)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print("gen_catalog: %d errors, clauses.json not written" % len(errors), file=sys.stderr)
        return 1
    text = dumps(catalog)
    if "--stdout" in argv:
        sys.stdout.write(text)
    else:
        with open(os.path.join(spec_dir, "clauses.json"), "w", encoding="utf-8") as f:
            f.write(text)
        for path, schema_text in synced_schemas(spec_dir, catalog).items():
            with open(path, "w", encoding="utf-8") as f:
                f.write(schema_text)
        print("gen_catalog: wrote %d clauses, %d features, %d parameters"
              % (len(catalog["clauses"]), len(catalog["pics_features"]),
                 len(catalog["parameters"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
