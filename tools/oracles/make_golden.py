#!/usr/bin/python3
"""Regenerates the committed golden corpus in pcaps/golden/ (see its README.md).

  make_golden.py --decoder PATH/metaroce [--dir pcaps/golden]

1. golden.pcap: every opcode of our table (RC incl. INVALIDATE/FLUSH/ATOMIC_WRITE, UC, RD,
   UD, CNP) with and without an 802.1Q tag, over IPv4 and IPv6, plus 50 seeded random
   ones, built with Scapy + metaroce_scapy (IPv4 ICRC: Scapy's; IPv6 ICRC: metaroce_scapy's,
   verified against the Linux rxe captures). The decoder must agree with Scapy
   (compare_scapy.py) and with tshark (compare_tshark.py) on it; only then is its decode
   written to golden.jsonl.
2. golden_edge.pcap: frames that are not RoCE or are malformed (ARP, other UDP port, IP
   fragment, truncated headers, bad pad count, payload on an opcode without one, unknown
   opcode, a wrong ICRC). No oracle decodes these the way the contract does; each must come
   out as the kind stated here (not_roce / error on the named header / icrc_ok false), and
   the decode is then recorded in golden_edge.jsonl as a regression reference.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle_common as oc  # noqa: E402
import scapy_corpus as sc  # noqa: E402
import metaroce_scapy as ms  # noqa: E402,F401
from scapy.layers.l2 import Ether, ARP, Dot1Q  # noqa: E402
from scapy.layers.inet import IP, UDP, TCP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.packet import Raw  # noqa: E402

SEED = 20260
PY = "/usr/bin/python3"


def golden_rows():
    rows = []
    i = 0
    for op in sc.extended_opcodes():
        for vlan in (False, True):
            for ipv6 in (False, True):
                rows.append(sc.build_one(SEED, i, True, op=op, vlan=vlan, ipv6=ipv6))
                i += 1
    for _ in range(50):
        rows.append(sc.build_one(SEED, i, True))
        i += 1
    return rows


def edge_frames():
    """(bytes, what the decoder must say) for frames that are not well-formed RoCE."""
    mac = dict(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
    ip4 = dict(src="198.18.0.2", dst="198.18.0.1", flags=2)
    good = (Ether(**mac) / IP(**ip4) / UDP(sport=54099, dport=4791, chksum=0)
            / ms.BTH(opcode=0x04, psn=7, dqpn=0x11) / Raw(b"hello world!"))
    gb = bytes(good)
    bad_icrc = gb[:-1] + bytes([gb[-1] ^ 0xFF])

    def udp4791(payload):
        return bytes(Ether(**mac) / IP(**ip4) / UDP(sport=54099, dport=4791, chksum=0)
                     / Raw(payload))

    bth = bytes(ms.BTH(opcode=0x06, dqpn=0x11, psn=1, icrc=0))[:12]
    return [
        (bytes(Ether(**mac) / ARP(psrc="198.18.0.2", pdst="198.18.0.1")), ("not_roce", None)),
        (bytes(Ether(**mac) / IP(**ip4) / UDP(sport=1234, dport=53) / Raw(b"\0" * 20)),
         ("not_roce", None)),
        (bytes(Ether(**mac) / IP(**ip4) / TCP(sport=1234, dport=4791)), ("not_roce", None)),
        (bytes(Ether(**mac) / IP(src="198.18.0.2", dst="198.18.0.1", flags=1)
               / UDP(sport=54099, dport=4791, chksum=0) / Raw(b"\0" * 40)), ("not_roce", None)),
        (bytes(Ether(**mac) / Dot1Q(vlan=5) / IP(**ip4) / UDP(sport=1, dport=4791, chksum=0)
               / Raw(b"\x04\0\xff\xff\0\0")), ("error", "BTH")),
        (udp4791(bth + b"\0" * 8 + b"\0" * 4), ("error", "RETH")),  # RETH cut short
        (udp4791(bytes([0x0e, 0x30]) + bth[2:] + b"ab" + b"\0" * 4), ("error", "BTH")),  # pad 3 > 2
        (udp4791(bytes([0x11]) + bth[1:] + b"\0" * 4 + b"xyzw" + b"\0" * 4), ("error", "BTH")),
        (bytes(Ether(**mac) / IP(**ip4) / UDP(sport=54099, dport=4791, chksum=0)
               / ms.BTH(opcode=0x1f, dqpn=0x11) / Raw(b"abcd")), ("unknown_opcode", None)),
        (bad_icrc, ("icrc_bad", None)),
        (bytes(Ether(**mac) / IPv6(src="fe80::1", dst="fe80::2") / UDP(sport=54099, dport=4791)
               / ms.BTH(opcode=0x11, dqpn=0x11, icrc=0x12345678) / ms.AETH(msn=1)),
         ("icrc_bad", None)),
        (gb[:len(gb) - 30], ("error", None)),  # frame truncated inside the payload
    ]


def check_edge(n, want, a):
    kind, header = want
    if kind == "not_roce":
        return a.get("roce") is False and "not_roce" in a
    if kind == "error":
        return (a.get("roce") is False and "error" in a
                and (header is None or a["error"].get("header") == header))
    if kind == "icrc_bad":
        return a.get("roce") is True and a.get("icrc_ok") is False
    if kind == "unknown_opcode":
        return a.get("roce") is True and a.get("opcode_name") == "0x1f"
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("--dir", default=os.path.join(HERE, "..", "..", "pcaps", "golden"))
    a = ap.parse_args()
    out = os.path.abspath(a.dir)
    tmp = tempfile.mkdtemp(prefix="golden_")

    rows = golden_rows()
    pcap = os.path.join(out, "golden.pcap")
    scapy_expect = os.path.join(tmp, "golden.scapy.jsonl")
    oc.write_pcap(pcap, [(s, u, b) for s, u, b, _ in rows])
    with open(scapy_expect, "w") as f:
        for _, _, _, e in rows:
            f.write(json.dumps(e, sort_keys=True) + "\n")
    for cmd in ([PY, os.path.join(HERE, "compare_scapy.py"), "--decoder", a.decoder,
                 "--pcap", pcap, "--expect", scapy_expect],
                [PY, os.path.join(HERE, "compare_tshark.py"), "--decoder", a.decoder,
                 "--pcap", pcap, "--expect-icrc-ok"]):
        if subprocess.run(cmd).returncode != 0:
            raise SystemExit("make_golden: the decoder disagrees with an oracle; "
                             "golden.jsonl NOT written")
    write_decode(a.decoder, pcap, os.path.join(out, "golden.jsonl"))

    edges = edge_frames()
    epcap = os.path.join(out, "golden_edge.pcap")
    oc.write_pcap(epcap, [(1700000100 + n, 0, b) for n, (b, _) in enumerate(edges)])
    decoded = oc.run_decoder(a.decoder, epcap)
    bad = [n + 1 for n, ((_, want), d) in enumerate(zip(edges, decoded))
           if not check_edge(n, want, d)]
    if len(decoded) != len(edges) or bad:
        for n in bad:
            print("edge frame %d: wanted %s, got %s" % (n, edges[n - 1][1], decoded[n - 1]))
        raise SystemExit("make_golden: edge frames not decoded as intended; "
                         "golden_edge.jsonl NOT written")
    write_decode(a.decoder, epcap, os.path.join(out, "golden_edge.jsonl"))
    print("make_golden: %d golden frames, %d edge frames written to %s"
          % (len(rows), len(edges), out))


def write_decode(decoder, pcap, path):
    proc = subprocess.run([decoder, "decode", pcap, "--json"], stdout=subprocess.PIPE,
                          check=True)
    with open(path, "wb") as f:
        f.write(proc.stdout)


if __name__ == "__main__":
    main()
