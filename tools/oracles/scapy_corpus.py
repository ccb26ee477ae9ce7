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

In both, the BTH's TVer is random (0 mostly, any of 0-15 sometimes), so some frames have
TVer 1: Part II (Ext) frames, whose bytes after the BTH the codec reads by table 19.1
(SECH first and a SecTag before the ICRC when SX, resv7 bit 6, is set). Their expected
line is the dissection by the Part II layers of tools/scapy/metaroce.py (Scapy's own
layers know no Part II; in the plain corpus they are dissected after the base frames, in
this process, so the base frames keep Scapy's own dissection). A TVer-1 frame too short for
its headers (random bytes meant as base headers rarely fit table 19.1) is expected to be
refused: "roce": false, the layers read whole before it, and "error" naming the header
(ext_expect_of says how the decode contract counts).

Each line of --expect is Scapy's dissection of the built bytes (Ether(bytes)) in the
shape of `metaroce decode --json`, plus "ext_raw" where Scapy lacks a layer. Two Scapy
conventions are kept as Scapy shows them and mapped by the comparators: SACKETH
sack_offset is signed (the JSON has the unsigned 16-bit field), and bytes fields (SECH
htag, SecTag tag) are hex strings, as JSON has no bytes. A SecTag's ciphertext is the
payload and pad ("payload", "pad"), as in the decode contract; "SecTag" holds the tag.
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
    bth = BTH(opcode=op, solicited=r.randrange(2), migreq=r.randrange(2), padcount=pad,
              version=r.choice([0, 0, 0, r.randrange(16)]), pkey=r.randrange(65536),
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
    """Scapy's dissection of the bytes, in the decode contract's shape. A TVer-1 frame of
    the plain corpus gives None: main() dissects it with the Part II layers afterwards."""
    p = Ether(b)
    if p[BTH].version == 1:
        return ext_expect_of(b, frame, sec, usec) if extended else None
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


def _layers_to_bth(p, e, layers):
    layer = p
    while True:
        name = layer.__class__.__name__
        layers.append(name)
        e[name] = oc.layer_dict(layer)
        if isinstance(layer, BTH):
            return layer
        layer = layer.payload


def ext_expect_of(b, frame, sec, usec):
    """A TVer-1 frame as the Part II layers of tools/scapy/metaroce.py dissect it.

    Whether the frame is refused is decided by walking the header chain of the BTH
    (metaroce.header_chain: table 19.1, SECH first and SecTag last when SX is set) over the
    bytes after the BTH the way the decode contract counts them: each header must fit in
    what remains of the UDP payload, ICRC included; then the ICRC (4 bytes, or SecTag and
    ICRC, 20) must fit; then BTH.padcount must not exceed the bytes left before them; and an
    opcode that carries no payload must have none. The first rule broken names the header
    (and field) of the expected "error"; the headers before it are dissected from their own
    bytes and expected whole. A well-formed frame is Scapy's dissection of the whole frame,
    checked against the same walk."""
    import metaroce_scapy as ms
    p = Ether(b)
    e = {"frame": frame, "time": sec + usec / 1e6, "caplen": len(b)}
    layers = []
    bth = _layers_to_bth(p, e, layers)
    op = bth.opcode
    if op in ms.EXT_OPCODES:
        e["opcode_name"] = "RC_" + ms.ext_opcode_name(op)
        carries_payload_ = ms.EXT_OPCODES[op][2]
    else:
        e["opcode_name"] = "0x%02x" % op
        e["opcode_known"] = False
        carries_payload_ = True
    chain = ms.header_chain(bth)
    tagged = ms.SecTag in chain
    rest = bytes(bth.original)[12:]  # the UDP payload after the BTH, ICRC included
    walked = []
    error = None
    for cls in chain:
        if cls is ms.SecTag:
            continue
        size = len(cls())
        if len(rest) < size:
            error = {"header": cls.__name__}
            break
        walked.append((cls.__name__, oc.layer_dict(cls(rest[:size]))))
        rest = rest[size:]
    tail = 4 + (ms.SECURE_TAG_LEN if tagged else 0)
    if error is None and len(rest) < tail:
        error = {"header": "SecTag" if tagged else "ICRC"}
    if error is None:
        data = len(rest) - tail
        if bth.padcount > data:
            error = {"header": "BTH", "field": "padcount"}
        elif not carries_payload_ and data > 0:
            error = {"header": "BTH", "field": "opcode"}
    if error is not None:
        for name, fields in walked:
            layers.append(name)
            e[name] = fields
        e["roce"] = False
        e["layers"] = layers
        e["error"] = error
        return e

    # Well-formed: Scapy's dissection of the whole frame, past the BTH.
    e["roce"] = True
    data = b""
    layer = bth.payload
    while layer is not None and layer.__class__.__name__ != "NoPayload":
        name = layer.__class__.__name__
        if name == "Raw":
            data = bytes(layer.load)
        elif name == "Padding":
            raise SystemExit("frame %d: Scapy found Ethernet padding" % frame)
        elif name == "SecTag":
            data = bytes(layer.ciphertext)  # payload and pad, encrypted
            layers.append(name)
            e[name] = {"tag": oc.field_value(layer.tag)}
        else:
            layers.append(name)
            e[name] = oc.layer_dict(layer)
        layer = layer.payload if layer.payload else None
    got = [n for n in layers[layers.index("BTH") + 1:] if n != "SecTag"]
    if got != [n for n, _ in walked] or any(e[n] != f for n, f in walked):
        raise SystemExit("frame %d: Scapy's dissection %s differs from the walk of its header "
                         "chain %s" % (frame, got, [n for n, _ in walked]))
    pad = bth.padcount
    e["layers"] = layers
    e["payload"] = data[:len(data) - pad].hex()
    e["payload_len"] = len(data) - pad
    e["pad"] = data[len(data) - pad:].hex()
    e["icrc"] = int(bth.icrc)
    e["icrc_ok"] = True
    return e


def _work(args):
    seed, lo, hi, mode = args
    if mode == "extended":
        import metaroce_scapy  # noqa: F401 (binds the layers)
    return [build_one(seed, i, mode == "extended") for i in range(lo, hi)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--extended", action="store_true")
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: CPUs)")
    a = ap.parse_args()
    mode = "extended" if a.extended else "plain"
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    print("scapy_corpus: seed %d, %d packets%s" % (seed, a.count,
                                                  ", extended" if a.extended else ""))
    t0 = time.time()
    jobs = a.jobs or os.cpu_count() or 1
    chunk = 250
    tasks = [(seed, lo, min(lo + chunk, a.count), mode) for lo in range(0, a.count, chunk)]
    if jobs > 1 and len(tasks) > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_work, tasks)
    else:
        parts = [_work(t) for t in tasks]
    rows = [x for part in parts for x in part]
    if mode == "plain":
        # TVer-1 frames: the Part II layers dissect them, now that every base frame has had
        # Scapy's own dissection (importing metaroce_scapy rebinds the layers after BTH).
        import metaroce_scapy  # noqa: F401
        rows = [(s, u, b, e if e is not None else ext_expect_of(b, i + 1, s, u))
                for i, (s, u, b, e) in enumerate(rows)]
    tver1 = [e for *_, e in rows if e["BTH"]["version"] == 1]
    refused = {}
    for e in tver1:
        if not e["roce"]:
            what = e["error"]["header"] + ("." + e["error"]["field"] if "field" in e["error"] else "")
            refused[what] = refused.get(what, 0) + 1
    if tver1:
        print("scapy_corpus: %d TVer-1 (Ext) frames dissected by the Part II layers, %d of them "
              "expected refused%s" % (len(tver1), sum(refused.values()), (" (%s)" % ", ".join(
                  "%s %d" % kv for kv in sorted(refused.items()))) if refused else ""))
    oc.write_pcap(a.out, [(s, u, b) for s, u, b, _ in rows])
    with open(a.expect, "w") as f:
        for _, _, _, e in rows:
            f.write(json.dumps(e, sort_keys=True) + "\n")
    print("scapy_corpus: wrote %s and %s in %.1f s" % (a.out, a.expect, time.time() - t0))


if __name__ == "__main__":
    main()
