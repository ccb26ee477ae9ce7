#!/usr/bin/python3
"""Checks that the decoder still decodes a golden capture exactly as recorded.

  golden_check.py --decoder PATH/metaroce --pcap FILE.pcap --jsonl FILE.jsonl [...]

Pairs of --pcap/--jsonl; every decoded line must equal the recorded one (as JSON objects:
same keys, same values). Prints the first differences by frame and key; exits 1 on any.
Regenerate the golden files with make_golden.py (pcaps/golden/README.md) when a change to
the decode is intended.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import oracle_common as oc  # noqa: E402


def diff(path, e, a, mm, frame):
    if isinstance(e, dict) and isinstance(a, dict):
        for k in sorted(set(e) | set(a)):
            diff(path + "." + k if path else k, e.get(k), a.get(k), mm, frame)
    elif e != a or type(e) is not type(a):
        mm.add(frame, path, e, a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("--pcap", action="append", required=True)
    ap.add_argument("--jsonl", action="append", required=True)
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    if len(a.pcap) != len(a.jsonl):
        raise SystemExit("give one --jsonl per --pcap")
    mm = oc.Mismatches(a.show)
    total = 0
    short = False
    for pcap, jl in zip(a.pcap, a.jsonl):
        want = oc.read_jsonl(jl)
        got = oc.run_decoder(a.decoder, pcap, wide_as_int=False)  # as written
        if len(want) != len(got):
            print("%s: %d frames recorded, %d decoded" % (pcap, len(want), len(got)))
            short = True
        for e, g in zip(want, got):
            diff("", e, g, mm, "%s#%s" % (os.path.basename(pcap), e.get("frame")))
        total += len(want)
    ok = mm.count == 0 and not short and total > 0
    print("golden_check: %d frames in %d files, %d differences in %d frames: %s"
          % (total, len(a.pcap), mm.count, len(mm.frames), "PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
