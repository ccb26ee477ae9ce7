#!/usr/bin/python3
"""Validate the MetaRoCE clause catalog, the PICS profiles and the PIXIT files.

    /usr/bin/python3 docs/spec/tools/check_spec.py [--spec-dir DIR] [FILE.pics.json ...]
                                                   [FILE.pixit.json ...]

Without file arguments it checks testcases/profiles/*.pics.json and
testcases/pixit/*.pixit.json of the repository this script lives in. Checks:

 (a) docs/spec/clauses.json equals what gen_catalog.py generates from metaroce.md + pics.md;
 (b) the catalog, every PICS profile and every PIXIT file obey the rules of
     docs/spec/catalog-schema.md, pics.md and pixit.md;
 (c) the ICRC of every worked example in metaroce.md is correct, and the window-replay
     table of section 26.5 equals what cc_model.py computes;
 (d) clauses.json and every PICS/PIXIT file also validate against the published JSON
     Schemas in docs/spec/schema/ (checked with a built-in draft 2020-12 subset).

Every error names the file, the line where there is one, and the field. Exit status 0
when there is no error, 1 otherwise; the last line is a one-line summary.
Standard library only (no jsonschema).
"""
import argparse
import glob
import ipaddress
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cc_model  # noqa: E402
import gen_catalog as gc  # noqa: E402
import icrc  # noqa: E402
import secure  # noqa: E402

E = gc.Error
NET_TESTBED = ipaddress.ip_network("198.18.0.0/15")
MAC_RE = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
PIXIT_SECTIONS = {
    # section: {key: (type or tuple of types, required)}
    "link": {"type": (str, True), "mtu": (int, True), "ib_mtu": (int, True),
             "interface": (str, False), "namespace": (str, False),
             "time_dilation": (int, False)},
    "tester": {"ipv4": (str, True), "ipv6": (str, False), "mac": (str, True),
               "qpn_base": (int, False)},
    "dut": {"ipv4": (str, True), "ipv6": (str, False), "mac": (str, True),
            "control": (str, True), "gid_index_ipv4": (int, False),
            "gid_index_ipv6": (int, False)},
    "tolerance": {"absolute_ms": ((int, float), True), "percent": ((int, float), True)},
    "timeouts": {"expect_ms": ((int, float), True), "no_packet_ms": ((int, float), True),
                 "test_s": ((int, float), True), "setup_s": ((int, float), True)},
}
LINK_TYPES = ("memory", "veth", "tap", "pcap")
IB_MTUS = (256, 512, 1024, 2048, 4096)


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, path, line, field, message, ident=None):
        self.errors.append(E(path, line, field, message, ident))


def json_line(text, key):
    """Best-effort line number of the first occurrence of "key" in a JSON text."""
    idx = text.find('"%s"' % key)
    return text.count("\n", 0, idx) + 1 if idx >= 0 else None


def load_json(ck, path):
    try:
        text = gc.read_text(path)
    except OSError as exc:
        ck.err(path, None, "file", "cannot read: %s" % exc)
        return None, ""
    try:
        return json.loads(text), text
    except json.JSONDecodeError as exc:
        ck.err(path, exc.lineno, "json", "invalid JSON: %s" % exc.msg)
        return None, text


# ---------------------------------------------------------------------------------------
# (b) catalog rules

def check_catalog(ck, cat, path, text, md_lines=None):
    md_lines = md_lines or {}

    def where(ident):
        return md_lines.get(ident, json_line(text, ident))

    if not isinstance(cat, dict):
        ck.err(path, None, "(top)", "not a JSON object")
        return
    if cat.get("schema_version") != 1:
        ck.err(path, json_line(text, "schema_version"), "schema_version", "must be 1")
    if not isinstance(cat.get("spec_version"), str) or not cat.get("spec_version"):
        ck.err(path, json_line(text, "spec_version"), "spec_version", "missing or not a string")
    for key in ("clauses", "pics_features", "parameters"):
        if not isinstance(cat.get(key), list):
            ck.err(path, None, key, "missing or not a list")
            return

    feats = {}
    for i, f in enumerate(cat["pics_features"]):
        key = f.get("key") if isinstance(f, dict) else None
        if not isinstance(key, str) or not gc.KEY_RE.match(key):
            ck.err(path, None, "pics_features[%d].key" % i, "missing or malformed")
            continue
        if key in feats:
            ck.err(path, json_line(text, key), "pics_features[%d].key" % i,
                   "duplicate feature key %s" % key)
        feats[key] = f
        if not isinstance(f.get("meaning"), str) or not f["meaning"]:
            ck.err(path, json_line(text, key), "pics_features[%d].meaning" % i, "missing",
                   key)
        if not isinstance(f.get("requires"), list):
            ck.err(path, json_line(text, key), "pics_features[%d].requires" % i,
                   "missing or not a list", key)
    for key, f in feats.items():
        for r in f.get("requires") or []:
            if r not in feats:
                ck.err(path, json_line(text, key), "pics_features.requires",
                       "requires undefined feature key %s" % r, key)

    params = {}
    for i, p in enumerate(cat["parameters"]):
        name = p.get("name") if isinstance(p, dict) else None
        if not isinstance(name, str) or not gc.PARAM_RE.fullmatch(name):
            ck.err(path, None, "parameters[%d].name" % i, "missing or malformed")
            continue
        if name in params:
            ck.err(path, json_line(text, name), "parameters[%d].name" % i,
                   "duplicate parameter %s" % name)
        params[name] = p
        for k in ("default", "min", "max"):
            if not isinstance(p.get(k), (int, float)) or isinstance(p.get(k), bool):
                ck.err(path, json_line(text, name), "parameters[%d].%s" % (i, k),
                       "missing or not a number", name)
        if not isinstance(p.get("unit"), str) or not p.get("unit"):
            ck.err(path, json_line(text, name), "parameters[%d].unit" % i, "missing", name)
        if all(isinstance(p.get(k), (int, float)) for k in ("default", "min", "max")):
            if not p["min"] <= p["default"] <= p["max"]:
                ck.err(path, json_line(text, name), "parameters[%d].default" % i,
                       "default %s outside [%s, %s]" % (p["default"], p["min"], p["max"]), name)

    refs = {r.get("key") for r in cat.get("references", []) if isinstance(r, dict)}
    seen = {}
    for i, c in enumerate(cat["clauses"]):
        if not isinstance(c, dict):
            ck.err(path, None, "clauses[%d]" % i, "not an object")
            continue
        ident = c.get("id")
        line = where(ident) if isinstance(ident, str) else None
        if not isinstance(ident, str) or not gc.ID_RE.match(ident):
            ck.err(path, line, "clauses[%d].id" % i, "missing or malformed id %r "
                   "(want MR-<AREA>-<NN>)" % (ident,))
            continue
        if ident in seen:
            ck.err(path, line, "clauses[%d].id" % i, "duplicate id %s (also clauses[%d])"
                   % (ident, seen[ident]), ident)
        seen[ident] = i
        area = ident.split("-")[1]
        if area not in gc.AREAS:
            ck.err(path, line, "clauses[%d].id" % i, "unknown area %s" % area, ident)
        if c.get("area") != area:
            ck.err(path, line, "clauses[%d].area" % i, "must be %s" % area, ident)
        if c.get("part") != gc.AREAS.get(area):
            ck.err(path, line, "clauses[%d].part" % i, "must be %r for area %s"
                   % (gc.AREAS.get(area), area), ident)
        if c.get("level") not in gc.LEVELS:
            ck.err(path, line, "clauses[%d].level" % i, "missing or not one of %s"
                   % "/".join(gc.LEVELS), ident)
        st = c.get("statement")
        if not isinstance(st, str) or len(st) < 10:
            ck.err(path, line, "clauses[%d].statement" % i, "missing or too short", ident)
        else:
            if c.get("level") == "MUST-IF" and not re.match(r"^(If|When) ", st):
                ck.err(path, line, "clauses[%d].statement" % i,
                       "a MUST-IF statement must begin with 'If' or 'When'", ident)
            if not st.endswith("."):
                ck.err(path, line, "clauses[%d].statement" % i, "must be one sentence ending "
                       "in '.'", ident)
            if re.search(r"\b(TODO|TBD|FIXME|XXX)\b", st):
                ck.err(path, line, "clauses[%d].statement" % i, "placeholder text", ident)
        ver = c.get("verify")
        if not isinstance(ver, list) or not ver:
            ck.err(path, line, "clauses[%d].verify" % i, "missing or empty", ident)
        else:
            for v in ver:
                if v not in gc.VERIFY:
                    ck.err(path, line, "clauses[%d].verify" % i, "unknown method %r (want %s)"
                           % (v, "/".join(gc.VERIFY)), ident)
            if len(set(ver)) != len(ver):
                ck.err(path, line, "clauses[%d].verify" % i, "repeated method", ident)
        pics = c.get("pics")
        if not isinstance(pics, str) or not pics.strip():
            ck.err(path, line, "clauses[%d].pics" % i, "missing", ident)
        else:
            keys, perr, _ = gc.parse_pics(pics)
            if perr:
                ck.err(path, line, "clauses[%d].pics" % i, "bad expression %r: %s"
                       % (pics, perr), ident)
            for k in sorted(keys):
                if k not in feats:
                    ck.err(path, line, "clauses[%d].pics" % i,
                           "undefined PICS key %s" % k, ident)
        if c.get("role") not in gc.ROLES:
            ck.err(path, line, "clauses[%d].role" % i, "missing or not one of %s"
                   % "/".join(gc.ROLES), ident)
        src = c.get("source")
        if not isinstance(src, str) or not src.strip():
            ck.err(path, line, "clauses[%d].source" % i, "missing", ident)
        else:
            for r in gc.REF_RE.findall(src):
                if r not in refs:
                    ck.err(path, line, "clauses[%d].source" % i,
                           "cites [%s], which the References section does not define" % r,
                           ident)
        if not isinstance(c.get("section"), str) or not c.get("section"):
            ck.err(path, line, "clauses[%d].section" % i, "missing", ident)
        prm = c.get("params")
        if not isinstance(prm, list):
            ck.err(path, line, "clauses[%d].params" % i, "missing or not a list", ident)
        else:
            for p in prm:
                if p not in params:
                    ck.err(path, line, "clauses[%d].params" % i,
                           "undefined parameter %s" % p, ident)
            if isinstance(st, str):
                named = set(gc.PARAM_RE.findall(st))
                if named != set(prm):
                    ck.err(path, line, "clauses[%d].params" % i, "must list exactly the "
                           "parameters the statement names: %s" % sorted(named), ident)
    check_retired(ck, cat, path, text, seen, md_lines)
    return feats, params, set(seen)


def check_retired(ck, cat, path, text, live, md_lines):
    """Retired ids (metaroce.md section 31.1): well formed, unique, never a live clause,
    replaced only by live clauses."""
    retired = cat.get("retired", [])
    if not isinstance(retired, list):
        ck.err(path, json_line(text, "retired"), "retired", "not a list")
        return
    seen = set()
    for i, r in enumerate(retired):
        ident = r.get("id") if isinstance(r, dict) else None
        line = (r.get("_line") if isinstance(r, dict) else None) or md_lines.get(
            "retired:%s" % ident) or json_line(text, "retired")
        if not isinstance(ident, str) or not gc.ID_RE.match(ident) \
                or ident.split("-")[1] not in gc.AREAS:
            ck.err(path, line, "retired[%d].id" % i, "missing or malformed id %r" % (ident,))
            continue
        if ident in seen:
            ck.err(path, line, "retired[%d].id" % i, "retired twice", ident)
        seen.add(ident)
        if ident in live:
            ck.err(path, md_lines.get(ident, line), "retired[%d].id" % i,
                   "retired id is used by a clause again (ids are never reused; give the "
                   "clause a new id)", ident)
        if not isinstance(r.get("revision"), int) or isinstance(r.get("revision"), bool):
            ck.err(path, line, "retired[%d].revision" % i, "missing or not an integer", ident)
        if not isinstance(r.get("reason"), str) or not r.get("reason"):
            ck.err(path, line, "retired[%d].reason" % i, "missing", ident)
        repl = r.get("replaced_by")
        if not isinstance(repl, list):
            ck.err(path, line, "retired[%d].replaced_by" % i, "missing or not a list", ident)
            continue
        for x in repl:
            if x not in live:
                ck.err(path, line, "retired[%d].replaced_by" % i,
                       "names %r, which is not a clause of the catalog" % (x,), ident)


# ---------------------------------------------------------------------------------------
# PICS profiles

def check_pics(ck, path, feats, clause_ids, clauses_by_id, retired=None):
    doc, text = load_json(ck, path)
    if doc is None:
        return
    if not isinstance(doc, dict):
        ck.err(path, None, "(top)", "not a JSON object")
        return
    for k in doc:
        if k not in ("schema_version", "device", "features", "deviations", "notes"):
            ck.err(path, json_line(text, k), k, "unknown top-level key")
    if doc.get("schema_version") != 1:
        ck.err(path, json_line(text, "schema_version"), "schema_version", "must be 1")
    dev = doc.get("device")
    if not isinstance(dev, dict):
        ck.err(path, json_line(text, "device"), "device", "missing or not an object")
    else:
        for k in ("name", "vendor", "version"):
            if not isinstance(dev.get(k), str) or not dev.get(k):
                ck.err(path, json_line(text, "device"), "device.%s" % k,
                       "missing or not a string")
        for k, v in dev.items():
            if k not in ("name", "vendor", "version", "kernel", "firmware", "model",
                         "description"):
                ck.err(path, json_line(text, k), "device.%s" % k, "unknown key")
            elif not isinstance(v, str):
                ck.err(path, json_line(text, k), "device.%s" % k, "not a string")
    fs = doc.get("features")
    if not isinstance(fs, dict):
        ck.err(path, json_line(text, "features"), "features", "missing or not an object")
        fs = {}
    for k, v in fs.items():
        if k not in feats:
            ck.err(path, json_line(text, k), "features.%s" % k, "undefined PICS key")
        elif not isinstance(v, bool):
            ck.err(path, json_line(text, k), "features.%s" % k, "must be true or false")
    for k in feats:
        if k not in fs:
            ck.err(path, json_line(text, "features"), "features.%s" % k,
                   "missing (every defined key needs a boolean)")
    for k, v in fs.items():
        if v is True and k in feats:
            for r in feats[k].get("requires", []):
                if fs.get(r) is not True:
                    ck.err(path, json_line(text, k), "features.%s" % k,
                           "claimed, but the feature it requires, %s, is not" % r)
    devs = doc.get("deviations", [])
    if not isinstance(devs, list):
        ck.err(path, json_line(text, "deviations"), "deviations", "not a list")
        devs = []
    complete = all(isinstance(fs.get(k), bool) for k in feats)
    for i, d in enumerate(devs):
        if not isinstance(d, dict):
            ck.err(path, None, "deviations[%d]" % i, "not an object")
            continue
        cid = d.get("clause")
        line = json_line(text, cid) if isinstance(cid, str) else None
        if retired and cid in retired:
            ck.err(path, line, "deviations[%d].clause" % i, "clause %s is retired; it was "
                   "replaced by %s" % (cid, ", ".join(retired[cid]) or "nothing"))
        elif cid not in clause_ids:
            ck.err(path, line, "deviations[%d].clause" % i, "unknown clause id %r" % (cid,))
        elif complete and gc.eval_pics(clauses_by_id[cid]["pics"], fs) is False:
            ck.err(path, line, "deviations[%d].clause" % i, "clause %s does not apply to "
                   "this profile (pics: %s)" % (cid, clauses_by_id[cid]["pics"]))
        if not isinstance(d.get("note"), str) or not d.get("note"):
            ck.err(path, line, "deviations[%d].note" % i, "missing")
        if d.get("kind", "deviation") not in ("deviation", "limitation"):
            ck.err(path, line, "deviations[%d].kind" % i, "must be deviation or limitation")
        for k in d:
            if k not in ("clause", "note", "kind", "ref"):
                ck.err(path, line, "deviations[%d].%s" % (i, k), "unknown key")


# ---------------------------------------------------------------------------------------
# PIXIT files

def check_pixit(ck, path, params):
    doc, text = load_json(ck, path)
    if doc is None:
        return
    if not isinstance(doc, dict):
        ck.err(path, None, "(top)", "not a JSON object")
        return
    allowed = {"schema_version", "name", "description", "parameters"} | set(PIXIT_SECTIONS)
    for k in doc:
        if k not in allowed:
            ck.err(path, json_line(text, k), k, "unknown top-level key")
    if doc.get("schema_version") != 1:
        ck.err(path, json_line(text, "schema_version"), "schema_version", "must be 1")
    if not isinstance(doc.get("name"), str) or not doc.get("name"):
        ck.err(path, json_line(text, "name"), "name", "missing or not a string")
    for sec, spec in PIXIT_SECTIONS.items():
        obj = doc.get(sec)
        if not isinstance(obj, dict):
            ck.err(path, json_line(text, sec), sec, "missing or not an object")
            continue
        for k, (typ, required) in spec.items():
            if k not in obj:
                if required:
                    ck.err(path, json_line(text, sec), "%s.%s" % (sec, k), "missing")
                continue
            v = obj[k]
            if isinstance(v, bool) or not isinstance(v, typ):
                ck.err(path, json_line(text, k), "%s.%s" % (sec, k), "wrong type %s"
                       % type(v).__name__)
        for k in obj:
            if k not in spec:
                ck.err(path, json_line(text, k), "%s.%s" % (sec, k), "unknown key")
    link = doc.get("link") if isinstance(doc.get("link"), dict) else {}
    if link.get("type") not in LINK_TYPES + (None,):
        ck.err(path, json_line(text, "type"), "link.type", "must be one of %s"
               % "/".join(LINK_TYPES))
    if isinstance(link.get("time_dilation"), int) and not 1 <= link["time_dilation"] <= 1000:
        ck.err(path, json_line(text, "time_dilation"), "link.time_dilation", "outside 1..1000")
    if isinstance(link.get("mtu"), int) and not 576 <= link["mtu"] <= 9216:
        ck.err(path, json_line(text, "mtu"), "link.mtu", "outside 576..9216")
    if isinstance(link.get("ib_mtu"), int):
        if link["ib_mtu"] not in IB_MTUS:
            ck.err(path, json_line(text, "ib_mtu"), "link.ib_mtu", "must be one of %s"
                   % list(IB_MTUS))
        elif isinstance(link.get("mtu"), int) and link["ib_mtu"] > link["mtu"] - 80:
            ck.err(path, json_line(text, "ib_mtu"), "link.ib_mtu",
                   "larger than link.mtu - 80 (section 3.1)")
    for end in ("tester", "dut"):
        obj = doc.get(end) if isinstance(doc.get(end), dict) else {}
        if isinstance(obj.get("ipv4"), str):
            try:
                a = ipaddress.IPv4Address(obj["ipv4"])
                if a not in NET_TESTBED:
                    ck.err(path, json_line(text, obj["ipv4"]), "%s.ipv4" % end,
                           "%s is outside 198.18.0.0/15" % a)
            except ValueError:
                ck.err(path, json_line(text, obj["ipv4"]), "%s.ipv4" % end, "not an IPv4 "
                       "address")
        if isinstance(obj.get("ipv6"), str):
            try:
                ipaddress.IPv6Address(obj["ipv6"])
            except ValueError:
                ck.err(path, json_line(text, obj["ipv6"]), "%s.ipv6" % end, "not an IPv6 "
                       "address")
        if isinstance(obj.get("mac"), str) and not MAC_RE.match(obj["mac"]):
            ck.err(path, json_line(text, obj["mac"]), "%s.mac" % end,
                   "not a lower-case MAC address")
    tol = doc.get("tolerance") if isinstance(doc.get("tolerance"), dict) else {}
    for k in ("absolute_ms", "percent"):
        if isinstance(tol.get(k), (int, float)) and tol[k] < 0:
            ck.err(path, json_line(text, k), "tolerance.%s" % k, "negative")
    prm = doc.get("parameters")
    if not isinstance(prm, dict):
        ck.err(path, json_line(text, "parameters"), "parameters", "missing or not an object")
        return
    for name, p in params.items():
        if name not in prm:
            ck.err(path, json_line(text, "parameters"), "parameters.%s" % name, "missing")
            continue
        v = prm[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            ck.err(path, json_line(text, name), "parameters.%s" % name, "not a number")
        elif not p["min"] <= v <= p["max"]:
            ck.err(path, json_line(text, name), "parameters.%s" % name, "%s outside [%s, %s] "
                   "%s" % (v, p["min"], p["max"], p["unit"]))
    for name in prm:
        if name not in params:
            ck.err(path, json_line(text, name), "parameters.%s" % name,
                   "not a parameter of the catalog")


# ---------------------------------------------------------------------------------------
# published JSON Schemas: a small draft 2020-12 subset validator (type, const, enum,
# pattern, minimum/maximum, minLength, minItems, uniqueItems, required,
# additionalProperties false, items, $ref to $defs, allOf if/then), so that the schemas
# outside users get cannot drift from the data this script accepts.

_TYPES = {"object": dict, "array": list, "string": str, "integer": int,
          "number": (int, float), "boolean": bool}


def schema_errors(inst, sch, root, path="$"):
    if "$ref" in sch:
        return schema_errors(inst, root["$defs"][sch["$ref"].split("/")[-1]], root, path)
    errs = []
    t = sch.get("type")
    if t and (not isinstance(inst, _TYPES[t]) or (t != "boolean" and isinstance(inst, bool))):
        return [(path, "is not of type %s" % t)]
    if "const" in sch and inst != sch["const"]:
        errs.append((path, "must be %r" % (sch["const"],)))
    if "enum" in sch and inst not in sch["enum"]:
        errs.append((path, "%r is not one of %s" % (inst, sch["enum"])))
    if isinstance(inst, str):
        if "pattern" in sch and not re.search(sch["pattern"], inst):
            errs.append((path, "does not match %s" % sch["pattern"]))
        if len(inst) < sch.get("minLength", 0):
            errs.append((path, "is too short"))
    if isinstance(inst, (int, float)) and not isinstance(inst, bool):
        if "minimum" in sch and inst < sch["minimum"]:
            errs.append((path, "below %s" % sch["minimum"]))
        if "exclusiveMinimum" in sch and inst <= sch["exclusiveMinimum"]:
            errs.append((path, "not above %s" % sch["exclusiveMinimum"]))
        if "maximum" in sch and inst > sch["maximum"]:
            errs.append((path, "above %s" % sch["maximum"]))
    if isinstance(inst, dict):
        for r in sch.get("required", []):
            if r not in inst:
                errs.append((path + "." + r, "is required"))
        props = sch.get("properties", {})
        for k, val in inst.items():
            if k in props:
                errs += schema_errors(val, props[k], root, path + "." + k)
            elif sch.get("additionalProperties") is False:
                errs.append((path + "." + k, "is not allowed"))
    if isinstance(inst, list):
        if len(inst) < sch.get("minItems", 0):
            errs.append((path, "has too few items"))
        if sch.get("uniqueItems") and len({json.dumps(x, sort_keys=True) for x in inst}) \
                != len(inst):
            errs.append((path, "has repeated items"))
        if "items" in sch:
            for i, x in enumerate(inst):
                errs += schema_errors(x, sch["items"], root, "%s[%d]" % (path, i))
    for sub in sch.get("allOf", []):
        if "if" in sub and not schema_errors(inst, sub["if"], root, path):
            errs += schema_errors(inst, sub["then"], root, path)
    return errs


def check_against_schema(ck, path, schema_path):
    doc, text = load_json(ck, path)
    try:
        schema = json.loads(gc.read_text(schema_path))
    except (OSError, ValueError) as exc:
        ck.err(schema_path, None, "(schema)", "unreadable: %s" % exc)
        return
    if doc is None:
        return
    for where, msg in schema_errors(doc, schema, schema):
        ck.err(path, json_line(text, where.split(".")[-1].split("[")[0]), where[2:] or "(top)",
               "%s (%s)" % (msg, os.path.basename(schema_path)))


# ---------------------------------------------------------------------------------------
# (c) worked examples

def check_examples(ck, md, examples):
    seen = set()
    for ex in examples:
        line, ident = ex.get("_line"), ex.get("id")
        if not ident or not re.match(r"^EX-[A-Z0-9-]+$", ident):
            ck.err(md, line, "id", "example without a valid id=EX-..")
            continue
        if ident in seen:
            ck.err(md, line, "id", "duplicate example id", ident)
        seen.add(ident)
        if ex.get("layer") not in ("eth", "ip"):
            ck.err(md, line, "layer", "must be eth or ip", ident)
            continue
        data = bytes.fromhex(ex["hex"])
        try:
            ip = icrc.strip_ethernet(data) if ex["layer"] == "eth" else data
            hlen, end = icrc.split(ip)
            if end != len(ip):
                ck.err(md, line, "length", "IP length field says %d bytes, dump has %d"
                       % (end, len(ip)), ident)
                continue
            udp_len = int.from_bytes(ip[hlen + 4:hlen + 6], "big")
            if udp_len != end - hlen:
                ck.err(md, line, "udp.len", "UDP length %d, datagram is %d bytes"
                       % (udp_len, end - hlen), ident)
            if int.from_bytes(ip[hlen + 2:hlen + 4], "big") != 4791:
                ck.err(md, line, "udp.dport", "not 4791", ident)
            want, found = icrc.check(data)
        except (icrc.IcrcError, IndexError) as exc:
            ck.err(md, line, "packet", str(exc), ident)
            continue
        if want != found:
            ck.err(md, line, "icrc", "dump carries %s, correct ICRC is %s"
                   % (found.hex(), want.hex()), ident)
        elif ident.startswith("EX-S"):
            # Secure-mode examples (section 19.4): both tags must verify with the example SA.
            err = secure.verify_ip(ip[:end], secure.example_sa_for(ip))
            if err:
                ck.err(md, line, "secure", err + " (docs/spec/tools/secure.py, example SA of "
                       "section 27)", ident)
    return len(seen)


# ---------------------------------------------------------------------------------------

def first_difference(a, b):
    for key in ("schema_version", "spec_version", "pics_features", "parameters",
                "references", "examples", "retired"):
        if a.get(key) != b.get(key):
            return key
    ca, cb = a.get("clauses", []), b.get("clauses", [])
    for x, y in zip(ca, cb):
        if x != y:
            fields = [k for k in set(x) | set(y) if x.get(k) != y.get(k)]
            return "clause %s, field %s" % (x.get("id", y.get("id")), ",".join(sorted(fields)))
    if len(ca) != len(cb):
        return "number of clauses (%d generated, %d committed)" % (len(ca), len(cb))
    return "formatting"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec-dir", default=os.path.normpath(os.path.join(HERE, "..")))
    ap.add_argument("files", nargs="*", help="*.pics.json and *.pixit.json files")
    args = ap.parse_args(argv[1:])
    spec = args.spec_dir
    files = args.files
    if not files:
        top = os.path.normpath(os.path.join(spec, "..", ".."))
        files = (sorted(glob.glob(os.path.join(top, "testcases", "profiles", "*.pics.json")))
                 + sorted(glob.glob(os.path.join(top, "testcases", "pixit", "*.pixit.json"))))
    ck = Checker()

    # (a) regenerate and compare
    gen_errors = []
    generated, located = gc.build(spec, gen_errors)
    ck.errors.extend(gen_errors)
    cat_path = os.path.join(spec, "clauses.json")
    committed, text = load_json(ck, cat_path)
    if committed is not None and not gen_errors and gc.dumps(generated) != text:
        ck.err(cat_path, None, "(catalog)", "out of date with metaroce.md/pics.md (first "
               "difference: %s); run /usr/bin/python3 docs/spec/tools/gen_catalog.py"
               % first_difference(generated, committed))

    if not gen_errors:
        try:
            for path, want in gc.synced_schemas(spec, generated).items():
                if gc.read_text(path) != want:
                    ck.err(path, None, "(schema)", "feature-key or parameter list out of date "
                           "with the catalog; run /usr/bin/python3 docs/spec/tools/gen_catalog.py")
        except (OSError, ValueError, KeyError) as exc:
            ck.err(os.path.join(spec, "schema"), None, "(schema)", "unreadable: %s" % exc)

    # (b) rules, on the generated catalog (with metaroce.md lines) and the committed one
    md = located["md"]
    md_lines = {c["id"]: c["_line"] for c in located["clauses"]}
    md_lines.update({"retired:%s" % r["id"]: r["_line"] for r in located.get("retired", [])})
    before = len(ck.errors)
    feats, params, ids = check_catalog(ck, generated, md, "", md_lines) or ({}, {}, set())
    if committed is not None and len(ck.errors) == before:
        check_catalog(ck, committed, cat_path, text)
    by_id = {c["id"]: c for c in generated["clauses"] if isinstance(c.get("id"), str)}
    retired = {r["id"]: r.get("replaced_by", []) for r in generated.get("retired", [])
               if isinstance(r, dict) and isinstance(r.get("id"), str)}
    n_pics = n_pixit = 0
    schema_dir = os.path.join(spec, "schema")
    if committed is not None:
        check_against_schema(ck, cat_path, os.path.join(schema_dir, "clauses.schema.json"))
    for f in files:
        if f.endswith(".pics.json"):
            n_pics += 1
            check_pics(ck, f, feats, ids, by_id, retired)
            check_against_schema(ck, f, os.path.join(schema_dir, "pics.schema.json"))
        elif f.endswith(".pixit.json"):
            n_pixit += 1
            check_pixit(ck, f, params)
            check_against_schema(ck, f, os.path.join(schema_dir, "pixit.schema.json"))
        else:
            ck.err(f, None, "file", "neither *.pics.json nor *.pixit.json")

    # (c) examples, and the window replay of section 26.5
    n_ex = check_examples(ck, md, located["examples"])
    for line, msg in cc_model.check(md):
        ck.err(md, line, "EX-W1", msg)

    for e in ck.errors:
        print(e)
    counts = "%d clauses, %d PICS features, %d parameters, %d PICS profiles, %d PIXIT files, " \
             "%d examples" % (len(generated["clauses"]), len(feats), len(params), n_pics,
                              n_pixit, n_ex)
    if ck.errors:
        print("check_spec: FAILED with %d errors (%s)" % (len(ck.errors), counts))
        return 1
    print("check_spec: OK (%s)" % counts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
