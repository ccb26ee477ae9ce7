#!/usr/bin/python3
"""Checks the decoder against the real Linux rxe captures (pcaps/rxe/).

  rxe_check.py --decoder PATH/metaroce --pcap A.pcapng [--pcap B.pcapng ...] [--frames 120]

- every frame decodes as RoCE with icrc_ok true (IPv4 and IPv6), and the total number of
  frames is --frames;
- our ICRC equals the one on the wire and the one computed independently in Python
  (Scapy's code for IPv4, metaroce_scapy.icrc_ipv6 for IPv6);
- then compare_tshark.py: every field decodes as tshark decodes it.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle_common as oc  # noqa: E402
import metaroce_scapy as ms  # noqa: E402
from scapy.utils import rdpcap  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402


def python_icrc(p):
    if IPv6 in p:
        return ms.icrc_ipv6(bytes(p[IPv6])[:-4])
    q = p.copy()
    q[ms.BTH].icrc = None
    return Ether(bytes(q))[ms.BTH].icrc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("--pcap", action="append", required=True)
    ap.add_argument("--frames", type=int, default=120)
    a = ap.parse_args()
    mm = oc.Mismatches()
    total = v4 = v6 = 0
    for pcap in a.pcap:
        ours = oc.run_decoder(a.decoder, pcap)
        theirs = rdpcap(pcap)
        if len(ours) != len(theirs):
            mm.add(pcap, "frames", len(theirs), len(ours))
        for d, p in zip(ours, theirs):
            f = "%s#%s" % (os.path.basename(pcap), d.get("frame"))
            total += 1
            v6 += IPv6 in p
            v4 += IP in p
            if d.get("roce") is not True or d.get("icrc_ok") is not True:
                mm.add(f, "roce/icrc_ok", (True, True), (d.get("roce"), d.get("icrc_ok")))
                continue
            wire = int(p[ms.BTH].icrc)
            py = python_icrc(p)
            if not (d["icrc"] == wire == py):
                mm.add(f, "icrc (ours, wire, python)", wire, (d["icrc"], wire, py))
    if total != a.frames:
        mm.add("*", "total frames", a.frames, total)
    ok = mm.count == 0
    print("rxe_check: %d frames (%d IPv4, %d IPv6), every ICRC verified by us and by "
          "Python: %s" % (total, v4, v6, "PASS" if ok else "FAIL"), flush=True)
    cmd = [sys.executable, os.path.join(HERE, "compare_tshark.py"), "--decoder", a.decoder,
           "--expect-icrc-ok", "--min-frames", str(a.frames)]
    for pcap in a.pcap:
        cmd += ["--pcap", pcap]
    ok = subprocess.run(cmd).returncode == 0 and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
