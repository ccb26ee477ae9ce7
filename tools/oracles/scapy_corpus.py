#!/usr/bin/python3
"""Builds a seeded corpus of varied RoCEv2 packets with Scapy, and Scapy's own dissection.

  scapy_corpus.py --seed S --count N --out FILE.pcap --expect FILE.jsonl [--extended | --ext]

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

With --ext every frame is a well-formed Ext frame built with the Part II layers from
seeded random field values: every opcode of table 19.1 (metaroce.EXT_OPCODES) over IPv4
and IPv6, with and without 802.1Q, secure (SX = 1, SECH + SecTag) and not, each MXH and
SACKETH flag set and clear; the coverage is checked and printed.

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


# ---- --ext: well-formed Part II frames from seeded random field values ----

def ext_opcodes():
    import metaroce_scapy as ms
    return sorted(ms.EXT_OPCODES)


def _mostly(r, usual, p_other, other):
    """`usual`, or with probability p_other a value drawn by other()."""
    return other() if r.random() < p_other else usual


def part2_layer(name, r):
    """One header of table 19.1 (or SECH) with seeded random field values. Reserved fields
    and version numbers are usually what the spec says and sometimes anything: the codec
    carries them, so every bit position is exercised."""
    import metaroce_scapy as ms
    bit = lambda: r.randrange(2)  # noqa: E731
    if name == "MXH":
        return ms.MXH(ver=_mostly(r, 1, 0.1, lambda: r.randrange(16)), retx=bit(), tsv=bit(),
                      ar=bit(), resv1=_mostly(r, 0, 0.3, lambda: 1), plane=r.randrange(256),
                      ev=r.randrange(1 << 16), pending=r.randrange(256),
                      msn=r.randrange(1 << 24), resv8=_mostly(r, 0, 0.2, lambda: r.randrange(256)),
                      rqsn=r.randrange(1 << 24), offset=r.getrandbits(32),
                      tx_timestamp=r.getrandbits(32))
    if name == "SACKETH":
        return ms.SACKETH(ece=bit(), trm=bit(), oow=bit(), prb=bit(), dup=bit(), tse=bit(),
                          ara=bit(), crv=bit(), sack_ref=r.randrange(1 << 24),
                          bitmap=r.choice([0, r.getrandbits(8), r.getrandbits(64),
                                           r.getrandbits(64)]),
                          ev_echo=r.randrange(1 << 16), plane_echo=r.randrange(256),
                          mpr=r.randrange(256), ce_count=r.randrange(1 << 16),
                          service_time=r.randrange(1 << 16), ts_echo=r.getrandbits(32),
                          sack_offset=r.choice([0, 8 * r.randrange(-4096, 4096),
                                                r.randrange(-32768, 32768)]),
                          credit=r.choice([0, r.randrange(1 << 16)]))
    if name == "CRETH":
        return ms.CRETH(ver=_mostly(r, 1, 0.1, lambda: r.randrange(16)),
                        resv4=_mostly(r, 0, 0.2, lambda: r.randrange(16)),
                        resv8=_mostly(r, 0, 0.2, lambda: r.randrange(256)),
                        credit=r.randrange(1 << 16))
    if name == "RSYNETH":
        return ms.RSYNETH(code=_mostly(r, r.randrange(1, 4), 0.2, lambda: r.randrange(256)),
                          end=bit(), resv7=_mostly(r, 0, 0.2, lambda: r.randrange(128)),
                          count=r.choice([0, 1, r.randrange(1 << 16)]))
    if name == "SECH":
        return ms.SECH(ver=_mostly(r, 1, 0.1, lambda: r.randrange(16)),
                       suite=_mostly(r, 1, 0.1, lambda: r.randrange(16)),
                       resv8=_mostly(r, 0, 0.2, lambda: r.randrange(256)),
                       epoch=r.randrange(1 << 16), spi=r.getrandbits(32),
                       pn=r.choice([r.randrange(1, 1 << 20), r.randrange(1, 1 << 63),
                                    r.getrandbits(64)]),
                       htag=rand_bytes(r, 8))
    if name == "AETH":
        return AETH(syndrome=r.choice([r.randrange(256), r.randrange(0x60, 0x6c)]),
                    msn=r.randrange(1 << 24))
    return ext_layer(name, r)  # RETH, AtomicETH, ImmDt, IETH, AtomicAckETH


def build_ext_one(seed, i):
    """(sec, usec, bytes, expect dict) for frame i of the --ext corpus. The first 8 x 26
    frames are every opcode of table 19.1 under each of IPv4/IPv6 x 802.1Q or not x secure
    or not; the rest draw those choices too."""
    import metaroce_scapy as ms
    r = random.Random("ext:%d:%d" % (seed, i))
    ops = ext_opcodes()
    if i < 8 * len(ops):
        op, combo = ops[i % len(ops)], i // len(ops)
        ipv6, vlan, secure = bool(combo & 1), bool(combo & 2), bool(combo & 4)
    else:
        # ACKs weigh four times as much: SACKETH has the most fields of Part II
        op = r.choice(ops + [0x11, 0x12] * 3)
        ipv6, vlan, secure = r.random() < 0.5, r.random() < 0.4, r.random() < 0.35

    pkt = Ether(dst=rand_mac(r), src=rand_mac(r))
    if vlan:
        pkt.add_payload(Dot1Q(prio=r.randrange(8), id=r.randrange(2), vlan=r.randrange(4096)))
    if ipv6:
        pkt.add_payload(IPv6(tc=r.randrange(256), fl=r.randrange(1 << 20),
                             hlim=r.randrange(1, 256), src=rand_ip6(r), dst=rand_ip6(r)))
    else:
        pkt.add_payload(IP(tos=r.randrange(256), ttl=r.randrange(1, 256), id=r.randrange(65536),
                           flags=r.choice([0, 2]), src=rand_ip4(r), dst=rand_ip4(r)))
    pkt.add_payload(UDP(sport=r.randrange(4792, 65536), dport=4791,
                        chksum=r.choice([0, r.randrange(1, 65536)])))

    _name, headers, carries = ms.EXT_OPCODES[op]
    plen = 0
    if carries:
        plen = 0 if r.random() < 0.05 else r.randrange(0, 301)
    pad = (-plen) & 3
    resv7 = (ms.BTH_RESV7_SX if secure else 0) | _mostly(r, 0, 0.2, lambda: r.randrange(64))
    pkt.add_payload(BTH(opcode=op, solicited=r.randrange(2), migreq=r.randrange(2),
                        padcount=pad, version=ms.EXT_VERSION, pkey=r.randrange(65536),
                        fecn=r.randrange(2), becn=r.randrange(2),
                        resv6=_mostly(r, 0, 0.3, lambda: r.randrange(64)),
                        dqpn=r.randrange(1 << 24), ackreq=r.randrange(2), resv7=resv7,
                        psn=r.randrange(1 << 24)))
    if secure:
        pkt.add_payload(part2_layer("SECH", r))
    for h in headers:
        pkt.add_payload(part2_layer(h.__name__, r))
    body = rand_bytes(r, plen) + (rand_bytes(r, pad) if r.random() < 0.3 else b"\x00" * pad)
    if secure:
        pkt.add_payload(ms.SecTag(ciphertext=body, tag=rand_bytes(r, ms.SECURE_TAG_LEN)))
    elif body:
        pkt.add_payload(Raw(load=body))

    b = bytes(pkt)
    sec = 1700000000 + i // 1000
    usec = (i % 1000) * 1000 + r.randrange(1000)
    e = ext_expect_of(b, i + 1, sec, usec)
    if not e["roce"]:
        raise SystemExit("ext frame %d: built well-formed, yet %s" % (i + 1, e["error"]))
    return sec, usec, b, e


EXT_FLAGS = {"MXH": ("retx", "tsv", "ar", "resv1"),
             "SACKETH": ("ece", "trm", "oow", "prb", "dup", "tse", "ara", "crv")}


def ext_coverage(rows):
    """What the --ext corpus covers; SystemExit naming what it misses."""
    import metaroce_scapy as ms
    seen = set()
    for _, _, _, e in rows:
        seen.add(("opcode", e["BTH"]["opcode"]))
        seen.add(("ip", "IPv6" if "IPv6" in e else "IPv4"))
        seen.add(("vlan", "Dot1Q" in e))
        seen.add(("secure", "SECH" in e))
        for layer, flags in EXT_FLAGS.items():
            for f in flags:
                if layer in e:
                    seen.add((layer + "." + f, e[layer][f]))
    want = {("opcode", op) for op in ms.EXT_OPCODES}
    want |= {("ip", "IPv4"), ("ip", "IPv6"), ("vlan", False), ("vlan", True),
             ("secure", False), ("secure", True)}
    want |= {(layer + "." + f, v) for layer, flags in EXT_FLAGS.items() for f in flags
             for v in (0, 1)}
    missing = sorted(want - seen, key=str)
    if missing:
        raise SystemExit("scapy_corpus --ext: the corpus misses %s" % missing)
    n = len(rows)
    count = lambda pred: sum(1 for *_, e in rows if pred(e))  # noqa: E731
    return ("%d opcodes of table 19.1, %d IPv6, %d with 802.1Q, %d secure (SX = 1), "
            "MXH flags %s and SACKETH flags %s each set and clear; %d MXH, %d SACKETH, "
            "%d CRETH, %d RSYNETH, %d SECH" % (
                len(ms.EXT_OPCODES), count(lambda e: "IPv6" in e),
                count(lambda e: "Dot1Q" in e), count(lambda e: "SECH" in e),
                "/".join(EXT_FLAGS["MXH"]), "/".join(EXT_FLAGS["SACKETH"]),
                count(lambda e: "MXH" in e), count(lambda e: "SACKETH" in e),
                count(lambda e: "CRETH" in e), count(lambda e: "RSYNETH" in e),
                count(lambda e: "SECH" in e))) + " (of %d frames)" % n


def _work(args):
    seed, lo, hi, mode = args
    if mode == "ext":
        return [build_ext_one(seed, i) for i in range(lo, hi)]
    if mode == "extended":
        import metaroce_scapy  # noqa: F401 (binds the layers)
    return [build_one(seed, i, mode == "extended") for i in range(lo, hi)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect", required=True)
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--extended", action="store_true")
    kind.add_argument("--ext", action="store_true",
                      help="well-formed Part II (TVer 1) frames only, see above")
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: CPUs)")
    a = ap.parse_args()
    mode = "ext" if a.ext else "extended" if a.extended else "plain"
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    print("scapy_corpus: seed %d, %d packets%s" % (
        seed, a.count, {"plain": "", "extended": ", extended", "ext": ", Ext (Part II)"}[mode]))
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
    if mode == "ext":
        print("scapy_corpus: " + ext_coverage(rows))
    elif tver1:
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
