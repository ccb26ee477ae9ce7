#!/usr/bin/python3
"""Builds a seeded corpus of varied RoCEv2 packets with Scapy, and Scapy's own dissection.

  scapy_corpus.py --seed S --count N --out FILE.pcap --expect FILE.jsonl [--extended]

Without --extended only Scapy's own layers are used (Ether, Dot1Q, IP, UDP and
scapy.contrib.roce's BTH, AETH after ACKNOWLEDGE, CNPPadding): Scapy is then the oracle,
its ICRC independent of ours. The extended headers Scapy lacks (RETH, ImmDt, AtomicETH,
AtomicAckETH, AETH after a read response) are random bytes at the head of Raw, and the
expected line carries them as "ext_raw" (hex) for the comparator to check against our
decoded headers.

With --extended the metaroce_scapy layers are used for every opcode of our table (RC incl.
INVALIDATE/FLUSH/ATOMIC_WRITE, UC, RD, UD, CNP), a quarter of the packets over IPv6 (ICRC
from metaroce_scapy.icrc_ipv6, verified against the Linux rxe captures).

Each line of --expect is Scapy's dissection of the built bytes (Ether(bytes)) in the
shape of `metaroce decode --json`, plus "ext_raw" where Scapy lacks a layer.
"""

import argparse
import json
import multiprocessing
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scapy.config import conf  # noqa: E402

conf.verb = 0

from scapy.layers.l2 import Ether, Dot1Q  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.contrib import roce  # noqa: E402
from scapy.contrib.roce import BTH, AETH, CNPPadding  # noqa: E402

import oracle_common as oc  # noqa: E402

# Sizes of the extended headers (bytes), by name.
EXT_SIZE = {"RDETH": 4, "DETH": 8, "FETH": 4, "RETH": 16, "AtomicETH": 28, "ImmDt": 4,
            "IETH": 4, "AETH": 4, "AtomicAckETH": 8, "CNPPadding": 16}

# What Scapy 2.5 itself knows: its opcode names, and where it dissects a layer.
SCAPY_OPCODES = dict(roce._bth_opcodes)
SCAPY_BINDS = {0x11: ["AETH"], 0x51: ["AETH"], 0x81: ["CNPPadding"]}

# Header composition, written from the IBTA tables (as the brief gives them).
_RC = {0x03: ["ImmDt"], 0x05: ["ImmDt"], 0x06: ["RETH"], 0x09: ["ImmDt"], 0x0a: ["RETH"],
       0x0b: ["RETH", "ImmDt"], 0x0c: ["RETH"], 0x0d: ["AETH"], 0x0f: ["AETH"],
       0x10: ["AETH"], 0x11: ["AETH"], 0x12: ["AETH", "AtomicAckETH"],
       0x13: ["AtomicETH"], 0x14: ["AtomicETH"], 0x16: ["IETH"], 0x17: ["IETH"],
       0x1c: ["FETH", "RETH"], 0x1d: ["RETH"]}
NO_PAYLOAD = {0x0c, 0x11, 0x12, 0x13, 0x14, 0x1c}


def headers_of(op):
    if op == 0x81:
        return ["CNPPadding"]
    if op in (0x64, 0x65):
        return ["DETH"] + (["ImmDt"] if op == 0x65 else [])
    base = op & 0x1f
    hs = list(_RC.get(base, []))
    if op & 0xe0 == 0x40:
        # RD requests carry RDETH + DETH; responses (0x0d-0x12) RDETH only.
        hs = (["RDETH"] if 0x0d <= base <= 0x12 else ["RDETH", "DETH"]) + hs
    return hs


def carries_payload(op):
    if op == 0x81:
        return False
    return (op & 0x1f) not in NO_PAYLOAD


def base_opcodes():
    # every RC and UC opcode Scapy knows, and the CNP.
    return sorted(op for op in SCAPY_OPCODES if op < 0x40 or op == 0x81)


def extended_opcodes():
    ops = [op for op in range(0x00, 0x15)] + [0x16, 0x17, 0x1c, 0x1d]
    ops += list(range(0x20, 0x2c)) + list(range(0x40, 0x55)) + [0x64, 0x65, 0x81]
    return ops


def rand_bytes(r, n):
    return r.getrandbits(8 * n).to_bytes(n, "big") if n else b""


def rand_mac(r):
    b = [r.randrange(256) for _ in range(6)]
    b[0] &= 0xFE  # unicast
    return ":".join("%02x" % x for x in b)


def rand_ip4(r):
    # 198.18.0.0/15
    return "198.%d.%d.%d" % (18 + r.randrange(2), r.randrange(256), r.randrange(1, 255))


def rand_ip6(r):
    if r.random() < 0.5:
        return "fe80::%x:%x:%x:%x" % tuple(r.randrange(0x10000) for _ in range(4))
    # 2001:2::/48, the IPv6 benchmarking range
    return "2001:2:0:%x:%x:%x:%x:%x" % tuple(r.randrange(0x10000) for _ in range(5))


def ext_layer(name, r):
    if name == "AETH":
        return AETH(syndrome=r.randrange(256), msn=r.randrange(1 << 24))
    if name == "CNPPadding":
        return CNPPadding(reserved1=r.choice([0, r.getrandbits(64)]),
                          reserved2=r.choice([0, r.getrandbits(64)]))
    import metaroce_scapy as ms  # only reached with --extended
    if name == "RDETH":
        return ms.RDETH(resv8=r.choice([0, r.randrange(256)]), eec=r.randrange(1 << 24))
    if name == "DETH":
        return ms.DETH(qkey=r.getrandbits(32), resv8=r.choice([0, r.randrange(256)]),
                       sqpn=r.randrange(1 << 24))
    if name == "FETH":
        return ms.FETH(resv=r.choice([0, r.getrandbits(26)]), sel=r.randrange(4),
                       plt=r.randrange(16))
    if name == "RETH":
        return ms.RETH(va=r.getrandbits(64), rkey=r.getrandbits(32), dlen=r.getrandbits(32))
    if name == "AtomicETH":
        return ms.AtomicETH(va=r.getrandbits(64), rkey=r.getrandbits(32),
                            swap=r.getrandbits(64), comp=r.getrandbits(64))
    if name == "ImmDt":
        return ms.ImmDt(imm=r.getrandbits(32))
    if name == "IETH":
        return ms.IETH(rkey=r.getrandbits(32))
    if name == "AtomicAckETH":
        return ms.AtomicAckETH(orig=r.getrandbits(64))
    raise KeyError(name)


def build_one(seed, i, extended, op=None, vlan=None, ipv6=None):
    """Returns (sec, usec, bytes, expect dict) for packet i of the corpus. op, vlan and
    ipv6 force those choices (make_golden.py); otherwise they are drawn from the seed."""
    r = random.Random("%d:%d:%d" % (seed, i, int(extended)))
    ops = extended_opcodes() if extended else base_opcodes()
    if op is None:
        op = ops[i % len(ops)] if i < len(ops) else r.choice(ops)

    pkt = Ether(dst=rand_mac(r), src=rand_mac(r))
    if (r.random() < 0.4) if vlan is None else vlan:
        pkt.add_payload(Dot1Q(prio=r.randrange(8), id=r.randrange(2), vlan=r.randrange(4096)))
    if ipv6 is None:
        ipv6 = extended and r.random() < 0.25
    if ipv6:
        pkt.add_payload(IPv6(tc=r.randrange(256), fl=r.randrange(1 << 20),
                             hlim=r.randrange(1, 256), src=rand_ip6(r), dst=rand_ip6(r)))
    else:
        pkt.add_payload(IP(tos=r.randrange(256), ttl=r.randrange(1, 256), id=r.randrange(65536),
                           flags=r.choice([0, 2]), src=rand_ip4(r), dst=rand_ip4(r)))
    # sport above 4791: Wireshark tries the lower UDP port's dissector first, and some
    # low ports (3130 ICP, 4306 B.A.T.M.A.N., ...) would take the packet from infiniband.
    pkt.add_payload(UDP(sport=r.randrange(4792, 65536), dport=4791,
                        chksum=r.choice([0, r.randrange(1, 65536)])))

    plen = 0
    if carries_payload(op):
        plen = 8 if op == 0x1d else (0 if r.random() < 0.05 else r.randrange(0, 301))
    pad = (-plen) & 3
    # Any TVer but 1: TVer 1 selects Part II's header table (section 19), which the Ext
    # golden corpus covers with the Part II oracles (make_golden.py); Scapy's base layers
    # and tshark's InfiniBand dissector read every TVer as Part I. (Drawn as before, so
    # every other packet of a seed is unchanged.)
    solicited, migreq = r.randrange(2), r.randrange(2)
    tver = r.choice([0, 0, 0, r.randrange(16)])
    bth = BTH(opcode=op, solicited=solicited, migreq=migreq, padcount=pad,
              version=0 if tver == 1 else tver, pkey=r.randrange(65536),
              fecn=r.randrange(2), becn=r.randrange(2),
              resv6=r.choice([0, 0, r.randrange(64)]), dqpn=r.randrange(1 << 24),
              ackreq=r.randrange(2), resv7=r.choice([0, 0, r.randrange(128)]),
              psn=r.randrange(1 << 24))
    pkt.add_payload(bth)  # (add_payload: no copies, unlike "/")

    hs = headers_of(op)
    scapy_has = hs if extended else SCAPY_BINDS.get(op, [])
    ext_raw = b""
    for name in hs:
        if name in scapy_has:
            pkt.add_payload(ext_layer(name, r))
        else:
            ext_raw += rand_bytes(r, EXT_SIZE[name])
    payload = rand_bytes(r, plen)
    tail = ext_raw + payload + b"\x00" * pad
    if tail:
        pkt.add_payload(Raw(load=tail))

    b = bytes(pkt)
    sec = 1700000000 + i // 1000
    usec = (i % 1000) * 1000 + r.randrange(1000)
    return sec, usec, b, expect_of(b, i + 1, sec, usec, ext_raw, pad, extended)


def expect_of(b, frame, sec, usec, ext_raw, pad, extended):
    """Scapy's dissection of the bytes, in the decode contract's shape."""
    p = Ether(b)
    e = {"frame": frame, "time": sec + usec / 1e6, "caplen": len(b), "roce": True}
    layers = []
    raw = b""
    layer = p
    while layer is not None and layer.__class__.__name__ != "NoPayload":
        name = layer.__class__.__name__
        if name == "Raw":
            raw = bytes(layer.load)
        elif name == "Padding":
            raise SystemExit("frame %d: Scapy found Ethernet padding" % frame)
        else:
            layers.append(name)
            e[name] = oc.layer_dict(layer)
        layer = layer.payload if layer.payload else None
    bth = p[BTH]
    if extended:
        import metaroce_scapy as ms
        e["opcode_name"] = ms.opcode_name(bth.opcode)
    else:
        e["opcode_name"] = SCAPY_OPCODES.get(bth.opcode, "0x%02x" % bth.opcode)
    e["layers"] = layers
    assert raw[:len(ext_raw)] == ext_raw
    data = raw[len(ext_raw):]
    assert bth.padcount == pad and len(data) >= pad
    e["payload"] = data[:len(data) - pad].hex()
    e["payload_len"] = len(data) - pad
    e["pad"] = data[len(data) - pad:].hex()
    e["icrc"] = int(bth.icrc)
    e["icrc_ok"] = True
    if ext_raw:
        e["ext_raw"] = ext_raw.hex()
    return e


def _work(args):
    seed, lo, hi, extended = args
    if extended:
        import metaroce_scapy  # noqa: F401 (binds the layers)
    return [build_one(seed, i, extended) for i in range(lo, hi)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--extended", action="store_true")
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: CPUs)")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    print("scapy_corpus: seed %d, %d packets%s" % (seed, a.count,
                                                  ", extended" if a.extended else ""))
    t0 = time.time()
    jobs = a.jobs or os.cpu_count() or 1
    chunk = 250
    tasks = [(seed, lo, min(lo + chunk, a.count), a.extended)
             for lo in range(0, a.count, chunk)]
    if jobs > 1 and len(tasks) > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_work, tasks)
    else:
        parts = [_work(t) for t in tasks]
    rows = [x for part in parts for x in part]
    oc.write_pcap(a.out, [(s, u, b) for s, u, b, _ in rows])
    with open(a.expect, "w") as f:
        for _, _, _, e in rows:
            f.write(json.dumps(e, sort_keys=True) + "\n")
    print("scapy_corpus: wrote %s and %s in %.1f s" % (a.out, a.expect, time.time() - t0))


if __name__ == "__main__":
    main()
