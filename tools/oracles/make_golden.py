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
3. golden_ext.pcap and golden_ext_secure.pcap: Part II (Ext) frames, BTH TVer 1 with the
   headers of table 19.1 for every opcode of it, with and without an 802.1Q tag, over IPv4
   and IPv6, plus 20 seeded random ones each (ext_corpus.py, seed 20261); the secure file's
   frames have SX set, a SECH and a SecTag. Built with tools/scapy/metaroce.py; the decoder
   must agree with its dissection (compare_scapy.py) and with tshark running
   tools/wireshark/metaroce.lua (compare_tshark.py --lua; both find the SECH by the BTH's
   SX bit) before golden_ext.jsonl and golden_ext_secure.jsonl are written.
4. golden_ext_edge.pcap: malformed and edge Ext frames (cut MXH, SACKETH, CRETH, RSYNETH,
   SECH and SecTag, payload on PROBE and CREDIT, a secure pad count into the tag, opcodes
   outside table 19.1 under TVer 1, SX on TVer 0, wrong ICRCs), each of the kind stated,
   recorded in golden_ext_edge.jsonl as golden_edge.jsonl is.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle_common as oc  # noqa: E402
import scapy_corpus as sc  # noqa: E402
import metaroce_scapy as ms  # noqa: E402,F401
import ext_corpus as ec  # noqa: E402
import metaroce as mx  # noqa: E402  (tools/scapy/metaroce.py, on sys.path through the shim)
from scapy.layers.l2 import Ether, ARP, Dot1Q  # noqa: E402
from scapy.layers.inet import IP, UDP, TCP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.packet import Raw  # noqa: E402

SEED = 20260
EXT_SEED = 20261
PY = "/usr/bin/python3"
LUA = os.path.normpath(os.path.join(HERE, "..", "wireshark", "metaroce.lua"))


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


def ext_golden_rows(secure):
    rows = []
    for op in ec.ext_opcodes():
        for vlan in (False, True):
            for ipv6 in (False, True):
                rows.append(ec.build_one(EXT_SEED, len(rows), op, secure, vlan=vlan, ipv6=ipv6))
    r = random.Random("golden-ext:%d:%d" % (EXT_SEED, int(secure)))
    for _ in range(20):
        rows.append(ec.build_one(EXT_SEED, len(rows), r.choice(ec.ext_opcodes()), secure))
    return rows


def ext_edge_frames():
    """(bytes, what the decoder must say) for Ext frames that are malformed or on an edge."""
    mac = dict(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
    ip4 = dict(src="198.18.0.2", dst="198.18.0.1", flags=2)

    def l3(ipv6=False):
        ip = IPv6(src="2001:2::2", dst="2001:2::1") if ipv6 else IP(**ip4)
        return Ether(**mac) / ip / UDP(sport=54099, dport=4791, chksum=0)

    def bth(op, secure=False, pad=0, version=1, **k):
        return mx.BTH(opcode=op, version=version, padcount=pad, dqpn=0x11, psn=0x20,
                      resv7=ec.SX if secure else 0, **k)

    def udp4791(transport, ipv6=False):
        return bytes(l3(ipv6) / Raw(transport))

    def hdr(layer):
        return bytes(layer)

    icrc = b"\0" * 4
    sech = mx.SECH(epoch=1, spi=0x101, pn=7, htag=b"\x5a" * 8)
    mxh = mx.MXH(ev=0xc021, msn=5, plane=1)
    b12 = lambda op, **k: bytes(bth(op, icrc=0, **k))[:12]  # noqa: E731 (BTH without ICRC)
    good_write = bytes(l3() / bth(0x06) / mxh / mx.RETH(va=0x1000, rkey=7, dlen=64)
                       / Raw(b"w" * 16))
    good_resync = bytes(l3(True) / bth(0x1a, secure=True) / sech / mxh
                        / mx.RSYNETH(code=2, end=1, count=3) / mx.SecTag(tag=b"\xee" * 16))
    return [
        (udp4791(b12(0x04) + hdr(mxh)[:12] + icrc), ("error", "MXH")),
        (udp4791(b12(0x11) + hdr(mx.AETH(msn=1)) + b"\0" * 10 + icrc), ("error", "SACKETH")),
        # A header is read when it fits in what follows the BTH, the ICRC's 4 bytes included
        # (then the ICRC is what is missing): these are cut shorter than that.
        (udp4791(b12(0x19) + b"\x10\0\0"), ("error", "CRETH")),
        (udp4791(b12(0x1a) + hdr(mxh) + b"\x01\0\0", True), ("error", "RSYNETH")),
        (udp4791(b12(0x04, secure=True) + hdr(sech)[:16] + icrc), ("error", "SECH")),
        (udp4791(b12(0x11, secure=True) + hdr(sech) + hdr(mx.AETH(msn=1))
                 + hdr(mx.SACKETH(sack_ref=0x20)) + b"\0" * 8 + icrc), ("error", "SecTag")),
        (udp4791(b12(0x18) + hdr(mxh) + b"abcd" + icrc), ("error", "BTH")),  # PROBE + payload
        (udp4791(b12(0x19, secure=True) + hdr(sech) + hdr(mx.CRETH(credit=9)) + b"xy"
                 + b"\0" * 16 + icrc, True), ("error", "BTH")),  # CREDIT + payload
        (udp4791(b12(0x04, secure=True, pad=2) + hdr(sech) + hdr(mxh) + b"\0" * 16 + icrc),
         ("error", "BTH")),  # pad count 2 with no byte before the tag
        (bytes(l3() / bth(0x64) / Raw(b"\0" * 12)), ("unknown_opcode", "0x64")),  # UD, TVer 1
        (bytes(l3(True) / bth(0x1b, secure=True) / Raw(b"\0" * 8)), ("unknown_opcode", "0x1b")),
        (bytes(l3() / bth(0x1c) / Raw(b"\0" * 20)), ("unknown_opcode", "0x1c")),  # FLUSH, TVer 1
        # SX on a TVer-0 SEND ONLY: a reserved bit; no SECH, no MXH
        (bytes(l3() / mx.BTH(opcode=0x04, version=0, resv7=ec.SX, dqpn=0x11) / Raw(b"base")),
         ("layers", ["Ether", "IP", "UDP", "BTH"])),
        (good_write[:-1] + bytes([good_write[-1] ^ 0xFF]), ("icrc_bad", None)),
        (good_resync[:-2] + bytes([good_resync[-2] ^ 0x01, good_resync[-1]]), ("icrc_bad", None)),
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
        return (a.get("roce") is True and a.get("opcode_known") is False
                and a.get("opcode_name") == (header or "0x1f"))
    if kind == "layers":
        return a.get("roce") is True and a.get("layers") == header and a.get("icrc_ok") is True
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

    ext_total = 0
    for name, secure in (("golden_ext", False), ("golden_ext_secure", True)):
        xrows = ext_golden_rows(secure)
        xpcap = os.path.join(out, name + ".pcap")
        xexpect = os.path.join(tmp, name + ".scapy.jsonl")
        oc.write_pcap(xpcap, [(s, u, b) for s, u, b, _ in xrows])
        with open(xexpect, "w") as f:
            for _, _, _, e in xrows:
                f.write(json.dumps(e, sort_keys=True) + "\n")
        for cmd in ([PY, os.path.join(HERE, "compare_scapy.py"), "--decoder", a.decoder,
                     "--pcap", xpcap, "--expect", xexpect],
                    [PY, os.path.join(HERE, "compare_tshark.py"), "--decoder", a.decoder,
                     "--pcap", xpcap, "--expect-icrc-ok", "--lua", LUA]):
            if subprocess.run(cmd).returncode != 0:
                raise SystemExit("make_golden: the decoder disagrees with an oracle on %s; "
                                 "%s.jsonl NOT written" % (name, name))
        write_decode(a.decoder, xpcap, os.path.join(out, name + ".jsonl"))
        ext_total += len(xrows)

    xedges = ext_edge_frames()
    xepcap = os.path.join(out, "golden_ext_edge.pcap")
    oc.write_pcap(xepcap, [(1700002000 + n, 0, b) for n, (b, _) in enumerate(xedges)])
    decoded = oc.run_decoder(a.decoder, xepcap)
    bad = [n + 1 for n, ((_, want), d) in enumerate(zip(xedges, decoded))
           if not check_edge(n, want, d)]
    if len(decoded) != len(xedges) or bad:
        for n in bad:
            print("Ext edge frame %d: wanted %s, got %s" % (n, xedges[n - 1][1], decoded[n - 1]))
        raise SystemExit("make_golden: Ext edge frames not decoded as intended; "
                         "golden_ext_edge.jsonl NOT written")
    write_decode(a.decoder, xepcap, os.path.join(out, "golden_ext_edge.jsonl"))
    print("make_golden: %d Ext golden frames (plain and secure), %d Ext edge frames written to %s"
          % (ext_total, len(xedges), out))


def write_decode(decoder, pcap, path):
    proc = subprocess.run([decoder, "decode", pcap, "--json"], stdout=subprocess.PIPE,
                          check=True)
    with open(path, "wb") as f:
        f.write(proc.stdout)


if __name__ == "__main__":
    main()
