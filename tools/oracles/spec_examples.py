#!/usr/bin/env python3
"""The spec's worked examples (docs/spec/metaroce.md section 27, built by
docs/spec/tools/examples.py) as a capture, with Scapy's dissection of each frame by
tools/scapy/metaroce.py as the expected decode: every example, base (EX-B*) and Part II
(EX-E*, EX-R*, EX-S*, EX-C*), for the codec, the builder and the Lua dissector to be held to.

An example given from its IP header gets an Ethernet header (the spec's MACs, EtherType by
IP version), so that every one is a frame of an Ethernet capture.

  spec_examples.py --spec-tools docs/spec/tools/*.py --out X.pcap --expect X.jsonl
"""

import argparse
import importlib.util
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ext_corpus  # noqa: E402  (the Part II dissection and its expected-decode rows)
import oracle_common as oc  # noqa: E402

SEC = 1700002000  # capture time of the first example; one millisecond apart


def load_examples(path):
    spec = importlib.util.spec_from_file_location("spec_examples_src", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_frame(module, kind, data):
    if kind == "eth":
        return data
    ethertype = b"\x08\x00" if data[0] >> 4 == 4 else b"\x86\xdd"
    return module.MAC_D + module.MAC_T + ethertype


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec-tools", nargs="+", required=True,
                    help="docs/spec/tools/examples.py and the modules it imports")
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect", required=True)
    a = ap.parse_args()
    module = load_examples(next(f for f in a.spec_tools if os.path.basename(f) == "examples.py"))
    rows = []
    for i, (name, (kind, data)) in enumerate(module.examples().items()):
        frame = as_frame(module, kind, data) + (data if kind != "eth" else b"")
        p = ext_corpus.dissect(frame, secure=False)
        bth = p[ext_corpus.mx.BTH]
        secure = bth.version == 1 and bool(bth.resv7 & ext_corpus.mx.BTH_RESV7_SX)
        usec = i * 1000
        e = ext_corpus.expect_of(frame, i + 1, SEC, usec, bth.padcount, secure)
        # Scapy's name where its table has the opcode (the base ones, CNP among them);
        # expect_of names the Part II opcodes of table 19.1.
        names = bth.get_field("opcode").i2s
        if bth.version == 0 and bth.opcode in names:
            e["opcode_name"] = names[bth.opcode]
        e["example"] = name
        rows.append((SEC, usec, frame, e))
    oc.write_pcap(a.out, [(s, u, b) for s, u, b, _ in rows])
    with open(a.expect, "w") as f:
        for *_, e in rows:
            f.write(json.dumps(e, sort_keys=True) + "\n")
    print("spec_examples: %d examples (%s) -> %s, %s" % (
        len(rows), " ".join(e["example"] for *_, e in rows), a.out, a.expect))


if __name__ == "__main__":
    main()
