#!/usr/bin/env python3
"""compare_run_dirs.py A B: two run directories hold the same run but for timings.

Each report file is normalised, then compared byte for byte: report.json and manifest.json
lose their timing members (started_at, duration_s of the run, of each test and repetition;
the manifest's output digests, which cover files with timings, and merge's shard list);
junit.xml loses its time and timestamp attributes; summary.md and index.html their start
time and durations. Every capture (pcapng) must be byte for byte the same. Prints the first
difference of each file that differs; exit 1 if any does.
"""
import json
import os
import re
import sys

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
SECONDS = re.compile(r"\b\d+\.\d{3} s\b")


def drop(obj, keys):
    for k in keys:
        obj.pop(k, None)
    return obj


def report_json(text):
    doc = json.loads(text)
    drop(doc, ["started_at", "duration_s"])
    for t in doc.get("tests", []):
        drop(t, ["duration_s"])
        for r in t.get("repetitions", []):
            drop(r, ["duration_s"])
    return json.dumps(doc, indent=1)


def manifest_json(text):
    return json.dumps(drop(json.loads(text), ["started_at", "outputs", "merged_from"]), indent=1)


def junit_xml(text):
    return re.sub(r' (time|timestamp)="[^"]*"', "", text)


def prose(text):
    return SECONDS.sub("N s", TIME.sub("TIME", text))


NORMALISERS = {
    "report.json": report_json,
    "manifest.json": manifest_json,
    "junit.xml": junit_xml,
    "summary.md": prose,
    "index.html": prose,
}


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}:\n  {x[:200]}\n  {y[:200]}"
    return f"one is longer: {len(la)} against {len(lb)} lines"


def captures(d):
    root = os.path.join(d, "captures")
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def main():
    a, b = sys.argv[1], sys.argv[2]
    bad = 0
    for name, normalise in NORMALISERS.items():
        with open(os.path.join(a, name), encoding="utf-8") as fa, open(
                os.path.join(b, name), encoding="utf-8") as fb:
            na, nb = normalise(fa.read()), normalise(fb.read())
        if na != nb:
            bad += 1
            print(f"{name} differs at {first_difference(na, nb)}")
    ca, cb = captures(a), captures(b)
    if ca.keys() != cb.keys():
        bad += 1
        print(f"captures: only in {a}: {sorted(ca.keys() - cb.keys())[:5]}, "
              f"only in {b}: {sorted(cb.keys() - ca.keys())[:5]}")
    for k in sorted(ca.keys() & cb.keys()):
        if ca[k] != cb[k]:
            bad += 1
            print(f"captures/{k} differs")
    print(f"{a} and {b}: {'the same run' if not bad else str(bad) + ' files differ'} "
          f"({len(NORMALISERS)} reports, {len(ca)} captures)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
