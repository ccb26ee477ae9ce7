"""Checks the mutant matrix of `metaroce mutants` against the suite's own claims.

1. Every mutant is killed by at least one test purpose, or is listed with a reason in
   testcases/mutants-survivors.txt; a listed mutant that is in fact killed is an error too
   (the list must not go stale).
2. Every test purpose that passes on the reference either kills at least one mutant or says
   `# positive-path: <why>` in its metadata.
3. Every mutant a test names in `# kills:` is really killed by that test.
4. No test purpose fails on the real reference.

usage: check_mutant_matrix.py MUTANTS_JSON TESTCASES_DIR SURVIVORS_TXT
"""
import json
import os
import re
import sys


def metadata(testcases):
    tests = {}
    for root, _, files in os.walk(testcases):
        for f in files:
            if not f.endswith(".mrt"):
                continue
            meta = {}
            last = None
            for line in open(os.path.join(root, f), encoding="utf-8"):
                if not line.startswith("#"):
                    break
                body = line[1:].strip()
                pairs = re.findall(r"(?:^|\s{2,})([a-z][a-z-]*):\s", body)
                if not pairs:
                    if last:
                        meta[last] += " " + body
                    continue
                for m in re.finditer(r"(?:^|\s{2,})([a-z][a-z-]*):\s+(.*?)(?=\s{2,}[a-z][a-z-]*:\s|$)", body):
                    meta[m.group(1)] = m.group(2).strip()
                    last = m.group(1)
            if "tp" in meta:
                tests[meta["tp"]] = meta
    return tests


def main():
    matrix = json.load(open(sys.argv[1]))
    tests = metadata(sys.argv[2])
    survivors = {}
    for line in open(sys.argv[3], encoding="utf-8"):
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, reason = line.partition(":")
            survivors[name.strip()] = reason.strip()
    errors = []
    killed_by = {m["name"]: set(m["killed_by"]) for m in matrix["mutants"]}
    kills_of = {}
    for m, ts in killed_by.items():
        for t in ts:
            kills_of.setdefault(t, set()).add(m)
    for m, ts in killed_by.items():
        if not ts and m not in survivors:
            errors.append(f"mutant {m} survives every test purpose (kill it, or list it with a reason in {sys.argv[3]})")
        if ts and m in survivors:
            errors.append(f"mutant {m} is listed as a survivor but {sorted(ts)[0]} kills it: remove it from the list")
    for t in matrix["baseline_not_passing"]:
        errors.append(f"test purpose {t} does not pass on the reference")
    for t in matrix["tests"]:
        meta = tests.get(t, {})
        if not kills_of.get(t) and not meta.get("positive-path"):
            errors.append(f"test purpose {t} kills no mutant and has no '# positive-path:' justification")
        for m in meta.get("kills", "").split():
            if m in killed_by and t not in killed_by[m]:
                errors.append(f"test purpose {t} claims to kill {m}, but {m} survives it")
    total = len(killed_by)
    dead = sum(1 for ts in killed_by.values() if ts)
    print(f"check_mutant_matrix: {dead} of {total} mutants killed ({100.0 * dead / max(total, 1):.1f}%), "
          f"{len(survivors)} listed survivors, {len(matrix['tests'])} test purposes")
    for e in errors:
        print("  " + e)
    print("check_mutant_matrix: " + ("OK" if not errors else f"FAILED with {len(errors)} errors"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
