#!/usr/bin/python3
"""Test tools/wireshark/metaroce.lua with Debian 12's tshark (Wireshark 4.0).

    /usr/bin/python3 tools/wireshark/metaroce_test.py [--tshark PATH] [--count N] [--keep DIR]

1. The Part II worked examples of docs/spec/clauses.json (EX-E*, EX-R*, EX-S*, EX-C*) and a
   seeded random set of Ext frames, built here from the byte tables of sections 19, 22.3,
   26.8 (every opcode of table 19.1 with 0x18-0x1A, IPv4/IPv6, VLAN or not, random flags,
   some with SECH and BTH SX = 1), are dissected with `tshark -X lua_script:metaroce.lua
   -T fields`; every field must equal what the spec text states (examples) or what the
   builder used.
2. The script loads without a Lua error (nothing "Lua" on stderr or in expert info).
3. TVer-0 frames (EX-B*, pcaps/rxe/*.pcapng) dissect as without the script (tshark -V
   output identical but for the frame.protocols line, which names metaroce).
4. Planted faults draw their expert info: reserved bits, SACK offset not a multiple of 8,
   inconsistent SACK reference, short SACKETH, MXH Ver 2, bad ICRC.
5. An RDMA CM REQ whose private data starts with an MXCAP shows the MXCAP fields.
6. SX both ways (section 19.4): secure frames (EX-S1, EX-S2, random ones) with SX cleared
   and the ICRC recomputed dissect without SECH and tag, by table 19.1 alone; non-secure
   frames with room for SECH and tag and SX set dissect with them. SX = 1 on a packet too
   short for SECH and tag, and Ext Resv7 bits 5:0 set, draw their expert info.

The C++ codec's `decode --json` for Ext frames does not exist yet; when it does, compare it
with the same field table (FIELDS below) frame by frame.
"""
import argparse
import glob
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "docs", "spec", "tools"))
import icrc  # noqa: E402  (docs/spec/tools/icrc.py, the spec's reference ICRC)
import examples  # noqa: E402  (docs/spec/tools/examples.py, the spec's packet builder)

LUA = os.path.join(HERE, "metaroce.lua")
CLAUSES = os.path.join(ROOT, "docs", "spec", "clauses.json")

# ---------------------------------------------------------------------------------------
# Byte tables: (field, byte offset, byte length, mask or None). A masked field is the value
# of its bits (shifted down); the builder packs the same tables the dissector reads.
# ---------------------------------------------------------------------------------------
BTH = [("infiniband.bth.opcode", 0, 1, None), ("infiniband.bth.se", 1, 1, 0x80),
       ("infiniband.bth.m", 1, 1, 0x40), ("infiniband.bth.padcnt", 1, 1, 0x30),
       ("infiniband.bth.tver", 1, 1, 0x0F), ("infiniband.bth.p_key", 2, 2, None),
       ("metaroce.bth.fecn", 4, 1, 0x80), ("metaroce.bth.becn", 4, 1, 0x40),
       ("metaroce.bth.resv6a", 4, 1, 0x3F), ("infiniband.bth.destqp", 5, 3, None),
       ("infiniband.bth.a", 8, 1, 0x80), ("infiniband.bth.reserved7", 8, 1, 0x7F),
       ("metaroce.bth.sx", 8, 1, 0x40), ("infiniband.bth.psn", 9, 3, None)]
SX_MASK = 0x40   # BTH byte 8 bit 6: SX, a SECH follows (section 19.4)
MXH = [("metaroce.mxh.ver", 0, 1, 0xF0), ("metaroce.mxh.retx", 0, 1, 0x08),
       ("metaroce.mxh.tsv", 0, 1, 0x04), ("metaroce.mxh.ar", 0, 1, 0x02),
       ("metaroce.mxh.resv0", 0, 1, 0x01), ("metaroce.mxh.plane", 1, 1, None),
       ("metaroce.mxh.ev", 2, 2, None), ("metaroce.mxh.pending", 4, 1, None),
       ("metaroce.mxh.msn", 5, 3, None), ("metaroce.mxh.resv8", 8, 1, None),
       ("metaroce.mxh.rqsn", 9, 3, None), ("metaroce.mxh.offset", 12, 4, None),
       ("metaroce.mxh.txts", 16, 4, None)]
SACK_FLAG_NAMES = ["ece", "trm", "oow", "prb", "dup", "tse", "ara", "crv"]
SACKETH = ([("metaroce.sack.flags", 0, 1, None)] +
           [("metaroce.sack." + n, 0, 1, 0x80 >> i) for i, n in enumerate(SACK_FLAG_NAMES)] +
           [("metaroce.sack.ref", 1, 3, None), ("metaroce.sack.bitmap", 4, 8, None),
            ("metaroce.sack.ev_echo", 12, 2, None), ("metaroce.sack.plane_echo", 14, 1, None),
            ("metaroce.sack.mpr", 15, 1, None), ("metaroce.sack.ce_count", 16, 2, None),
            ("metaroce.sack.service_time", 18, 2, None), ("metaroce.sack.ts_echo", 20, 4, None),
            ("metaroce.sack.offset", 24, 2, None), ("metaroce.sack.credit_limit", 26, 2, None)])
RETH = [("infiniband.reth.va", 0, 8, None), ("infiniband.reth.r_key", 8, 4, None),
        ("infiniband.reth.dmalen", 12, 4, None)]
AETH = [("infiniband.aeth.syndrome", 0, 1, None), ("infiniband.aeth.msn", 1, 3, None)]
ATOMICETH = [("infiniband.reth.va", 0, 8, None), ("infiniband.reth.r_key", 8, 4, None),
             ("infiniband.atomiceth.swapdt", 12, 8, None),
             ("infiniband.atomiceth.cmpdt", 20, 8, None)]
ATOMICACKETH = [("infiniband.atomicacketh.origremdt", 0, 8, None)]
IMMDT = [("infiniband.immdt", 0, 4, "bytes")]
IETH = [("infiniband.ieth", 0, 4, "bytes")]
CRETH = [("metaroce.creth.ver", 0, 1, 0xF0), ("metaroce.creth.resv4", 0, 1, 0x0F),
         ("metaroce.creth.resv8", 1, 1, None), ("metaroce.creth.credit_limit", 2, 2, None)]
RSYNETH = [("metaroce.rsyneth.code", 0, 1, None), ("metaroce.rsyneth.end", 1, 1, 0x80),
           ("metaroce.rsyneth.resv7", 1, 1, 0x7F), ("metaroce.rsyneth.count", 2, 2, None)]
SECH = [("metaroce.sech.ver", 0, 1, 0xF0), ("metaroce.sech.suite", 0, 1, 0x0F),
        ("metaroce.sech.resv8", 1, 1, None), ("metaroce.sech.epoch", 2, 2, None),
        ("metaroce.sech.spi", 4, 4, None), ("metaroce.sech.pn", 8, 8, None),
        ("metaroce.sech.htag", 16, 8, "bytes")]
HEADERS = {"MXH": MXH, "SACKETH": SACKETH, "RETH": RETH, "AETH": AETH, "AtomicETH": ATOMICETH,
           "AtomicAckETH": ATOMICACKETH, "ImmDt": IMMDT, "IETH": IETH, "CRETH": CRETH,
           "RSYNETH": RSYNETH, "SECH": SECH}
SIZES = {"MXH": 20, "SACKETH": 28, "RETH": 16, "AETH": 4, "AtomicETH": 28, "AtomicAckETH": 8,
         "ImmDt": 4, "IETH": 4, "CRETH": 4, "RSYNETH": 4, "SECH": 24}

# Table 19.1
HEADER_SETS = {}
for _op in (0x00, 0x01, 0x02, 0x04, 0x0E, 0x18):
    HEADER_SETS[_op] = ["MXH"]
for _op in (0x03, 0x05):
    HEADER_SETS[_op] = ["MXH", "ImmDt"]
for _op in (0x16, 0x17):
    HEADER_SETS[_op] = ["MXH", "IETH"]
for _op in (0x06, 0x07, 0x08, 0x0A, 0x0C):
    HEADER_SETS[_op] = ["MXH", "RETH"]
for _op in (0x09, 0x0B):
    HEADER_SETS[_op] = ["MXH", "RETH", "ImmDt"]
for _op in (0x0D, 0x0F, 0x10):
    HEADER_SETS[_op] = ["MXH", "AETH"]
for _op in (0x13, 0x14):
    HEADER_SETS[_op] = ["MXH", "AtomicETH"]
HEADER_SETS[0x11] = ["AETH", "SACKETH"]
HEADER_SETS[0x12] = ["AETH", "AtomicAckETH", "SACKETH"]
HEADER_SETS[0x19] = ["CRETH"]
HEADER_SETS[0x1A] = ["MXH", "RSYNETH"]
NO_PAYLOAD = {0x0C, 0x11, 0x12, 0x13, 0x14, 0x18, 0x19, 0x1A}

# Every field the test asks tshark for (metaroce.sack.psn / base are derived, see below).
FIELDS = []
for _tab in [BTH] + list(HEADERS.values()):
    for _f in _tab:
        if _f[0] not in FIELDS:
            FIELDS.append(_f[0])
DERIVED = ["metaroce.sack.base", "metaroce.sack.psn", "metaroce.payload", "metaroce.sech.tag",
           "infiniband.invariant.crc", "metaroce.icrc.computed"]
EXTRA = ["frame.number", "_ws.expert.message", "_ws.col.Protocol"]
ASKED = EXTRA + FIELDS + DERIVED


def get(buf, off, length, mask):
    v = int.from_bytes(buf[off:off + length], "big")
    if mask in (None, "bytes"):
        return buf[off:off + length].hex() if mask == "bytes" else v
    shift = (mask & -mask).bit_length() - 1
    return (v & mask) >> shift


def put(buf, off, length, mask, value):
    if mask == "bytes":
        buf[off:off + length] = bytes.fromhex(value)
        return
    if mask is None:
        buf[off:off + length] = value.to_bytes(length, "big", signed=value < 0)
        return
    shift = (mask & -mask).bit_length() - 1
    v = int.from_bytes(buf[off:off + length], "big") & ~mask
    buf[off:off + length] = (v | ((value << shift) & mask)).to_bytes(length, "big")


def decode_reference(l4):
    """Python reference decode of a TVer-1 BTH-onward packet: {field: value}."""
    out = {}
    for name, off, ln, mask in BTH:
        out[name] = get(l4, off, ln, mask)
    opcode, off = l4[0], 12
    hset = HEADER_SETS.get(opcode, [])
    # the wire says it: SX = 1 on a TVer-1 packet of a table 19.1 opcode
    secure = l4[1] & 0x0F == 1 and bool(l4[8] & SX_MASK) and opcode in HEADER_SETS
    for h in (["SECH"] if secure else []) + hset:
        for name, o, ln, mask in HEADERS[h]:
            out[name] = get(l4, off + o, ln, mask)
        if h == "SACKETH":
            ref, sack_off = out["metaroce.sack.ref"], out["metaroce.sack.offset"]
            if sack_off >= 0x8000:
                sack_off -= 0x10000
            out["metaroce.sack.offset"] = sack_off
            base = (ref + sack_off) % (1 << 24)
            out["metaroce.sack.base"] = base
            bm = out["metaroce.sack.bitmap"]
            out["metaroce.sack.psn"] = [(base + i) % (1 << 24) for i in range(64) if bm >> i & 1]
        off += SIZES[h]
    tail = 4 + (16 if secure else 0)
    pad = (l4[1] >> 4) & 3
    body = len(l4) - off - tail
    if body > 0:
        out["metaroce.payload"] = l4[off:off + body - min(pad, body)].hex()
    if secure:
        out["metaroce.sech.tag"] = l4[-20:-4].hex()
    out["infiniband.invariant.crc"] = int.from_bytes(l4[-4:], "big")
    return out


# ---------------------------------------------------------------------------------------
# Frames
# ---------------------------------------------------------------------------------------
MAC = bytes.fromhex("020000000002020000000001")


def ether(ip, vlan=None):
    etype = b"\x08\x00" if ip[0] >> 4 == 4 else b"\x86\xdd"
    tag = b"" if vlan is None else b"\x81\x00" + struct.pack("!H", vlan)
    return MAC + tag + etype + ip


def ip_udp(l4_no_icrc, v6, sport, tos=0x6A, flow=0):
    """IP + UDP (dport 4791) around BTH..payload, with its ICRC, tester to DUT: the same
    builder that makes the spec's worked examples."""
    src, dst = (examples.IP6_T, examples.IP6_D) if v6 else (examples.IP4_T, examples.IP4_D)
    return examples.packet(src, dst, sport, l4_no_icrc, tos=tos, flow=flow, v6=v6)


def random_frame(rng, force_secure=None, opcodes=None):
    """One random Ext frame and the values the builder put in it. SX goes with the SECH:
    1 exactly when the frame is secure."""
    opcode = rng.choice(sorted(opcodes or HEADER_SETS))
    hset = HEADER_SETS[opcode]
    secure = rng.random() < 0.15 if force_secure is None else force_secure
    payload = b"" if opcode in NO_PAYLOAD else bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 65)))
    padcnt = 0 if not payload else (-len(payload)) % 4
    want = {"infiniband.bth.opcode": opcode, "infiniband.bth.se": rng.getrandbits(1),
            "infiniband.bth.m": rng.getrandbits(1), "infiniband.bth.padcnt": padcnt,
            "infiniband.bth.tver": 1, "infiniband.bth.p_key": rng.getrandbits(16),
            "metaroce.bth.fecn": 0, "metaroce.bth.becn": rng.getrandbits(1),
            "metaroce.bth.resv6a": 0, "infiniband.bth.destqp": rng.getrandbits(24),
            "infiniband.bth.a": rng.getrandbits(1), "infiniband.bth.reserved7": int(secure) << 6,
            "metaroce.bth.sx": int(secure), "infiniband.bth.psn": rng.getrandbits(24)}
    l4 = bytearray(12)
    for name, off, ln, mask in BTH:
        put(l4, off, ln, mask, want[name])
    for h in (["SECH"] if secure else []) + hset:
        b = bytearray(SIZES[h])
        for name, off, ln, mask in HEADERS[h]:
            if mask == "bytes":
                v = bytes(rng.getrandbits(8) for _ in range(ln)).hex()
            elif mask is not None:
                v = rng.getrandbits(bin(mask).count("1"))
            else:
                v = rng.getrandbits(8 * ln)
            # fields with fixed values: versions 1, reserved 0, SACK rules of section 19.3
            if name.endswith(".ver"):
                v = 1
            elif name == "metaroce.sech.suite":
                v = 1
            elif "resv" in name:
                v = 0
            elif name == "metaroce.sech.pn":
                v &= (1 << 63) - 1
            elif name == "infiniband.aeth.syndrome":
                v &= 0x7F  # bit 7 is reserved
            elif name == "metaroce.mxh.plane":
                v &= 0x0F
            elif name == "metaroce.sack.ref":
                v &= 0xFFFFF8
            elif name == "metaroce.sack.offset":
                v = rng.randrange(-64, 64) * 8
            elif name.startswith("metaroce.sack.") and name[14:] in SACK_FLAG_NAMES:
                continue  # derived from the flags byte below
            want[name] = v
            put(b, off, ln, mask, v)
        if h == "SACKETH":
            for i, n in enumerate(SACK_FLAG_NAMES):
                want["metaroce.sack." + n] = get(b, 0, 1, 0x80 >> i)
            if not want["metaroce.sack.crv"]:
                want["metaroce.sack.credit_limit"] = 0
                b[26:28] = b"\0\0"
            ref = want["metaroce.sack.ref"]
            base = (ref + want["metaroce.sack.offset"]) % (1 << 24)
            want["metaroce.sack.base"] = base
            bm = want["metaroce.sack.bitmap"]
            want["metaroce.sack.psn"] = [(base + i) % (1 << 24) for i in range(64) if bm >> i & 1]
        l4 += b
    # an ACK's SACK reference follows from its (cumulative) PSN, which the dissector checks
    if opcode == 0x11 and want["infiniband.aeth.syndrome"] & 0x60 == 0:
        ref = ((want["infiniband.bth.psn"] + 1) % (1 << 24)) & 0xFFFFF8
        off = 12 + (24 if secure else 0) + 4 + 1
        l4[off:off + 3] = ref.to_bytes(3, "big")
        want["metaroce.sack.ref"] = ref
        base = (ref + want["metaroce.sack.offset"]) % (1 << 24)
        want["metaroce.sack.base"] = base
        want["metaroce.sack.psn"] = [(base + i) % (1 << 24) for i in range(64)
                                     if want["metaroce.sack.bitmap"] >> i & 1]
    if payload:
        want["metaroce.payload"] = payload.hex()
    l4 += payload + bytes(padcnt)
    if secure:
        tag = bytes(rng.getrandbits(8) for _ in range(16))
        want["metaroce.sech.tag"] = tag.hex()
        l4 += tag
    v6 = rng.random() < 0.4
    ip = ip_udp(bytes(l4), v6, 0xC000 | rng.getrandbits(14), tos=rng.getrandbits(8),
                flow=rng.getrandbits(20))
    want["infiniband.invariant.crc"] = int.from_bytes(ip[-4:], "big")
    want["metaroce.icrc.computed"] = want["infiniband.invariant.crc"]
    vlan = rng.getrandbits(12) if rng.random() < 0.3 else None
    return ether(ip, vlan), want


# What the spec text of section 27 states for each example (not read from the bytes).
EXAMPLE_VALUES = {
    "EX-E1": {"infiniband.bth.opcode": 0x08, "infiniband.bth.tver": 1, "infiniband.bth.psn": 0x202,
              "infiniband.bth.a": 1, "metaroce.mxh.ver": 1, "metaroce.mxh.tsv": 1,
              "metaroce.mxh.plane": 1, "metaroce.mxh.ev": 0xC005, "metaroce.mxh.msn": 7,
              "metaroce.mxh.rqsn": 0, "metaroce.mxh.offset": 2048, "metaroce.mxh.txts": 123456,
              "infiniband.reth.va": 0x20000000, "infiniband.reth.r_key": 0x5678,
              "infiniband.reth.dmalen": 0x818, "metaroce.payload": bytes(range(24)).hex()},
    "EX-E2": {"infiniband.bth.psn": 0x203, "infiniband.aeth.syndrome": 0x1F, "infiniband.aeth.msn": 7,
              "metaroce.sack.flags": 0x04, "metaroce.sack.tse": 1, "metaroce.sack.ref": 0x200,
              "metaroce.sack.bitmap": 0x6F, "metaroce.sack.ev_echo": 0xC005,
              "metaroce.sack.plane_echo": 1, "metaroce.sack.mpr": 8, "metaroce.sack.ce_count": 0,
              "metaroce.sack.service_time": 3, "metaroce.sack.ts_echo": 0x1E240,
              "metaroce.sack.offset": 0, "metaroce.sack.credit_limit": 0,
              "metaroce.sack.psn": [0x200, 0x201, 0x202, 0x203, 0x205, 0x206]},
    "EX-E3": {"infiniband.aeth.syndrome": 0x65, "infiniband.bth.psn": 0x204,
              "metaroce.sack.flags": 0x44, "metaroce.sack.trm": 1, "metaroce.sack.tse": 1,
              "metaroce.sack.offset": 0, "metaroce.sack.ce_count": 0,
              "metaroce.sack.ev_echo": 0xC009},
    "EX-E4": {"infiniband.bth.opcode": 0x18, "infiniband.bth.tver": 1, "infiniband.bth.a": 1,
              "infiniband.bth.psn": 0x208, "metaroce.mxh.ev": 0x4C11, "metaroce.mxh.plane": 2,
              "metaroce.mxh.msn": 0, "metaroce.mxh.offset": 0, "metaroce.mxh.txts": 200000},
    "EX-E5": {"infiniband.bth.psn": 0x206, "infiniband.aeth.syndrome": 0x1F, "infiniband.aeth.msn": 7,
              "metaroce.sack.flags": 0x14, "metaroce.sack.prb": 1, "metaroce.sack.tse": 1,
              "metaroce.sack.ref": 0x200, "metaroce.sack.offset": 0, "metaroce.sack.bitmap": 0x7F,
              "metaroce.sack.ev_echo": 0x4C11, "metaroce.sack.plane_echo": 2,
              "metaroce.sack.ts_echo": 0x30D40},
    "EX-E6": {"infiniband.bth.opcode": 0x04, "infiniband.bth.psn": 0x208, "metaroce.mxh.msn": 9,
              "metaroce.mxh.rqsn": 3, "metaroce.mxh.offset": 0, "metaroce.payload": b"MetaRoCE".hex()},
    "EX-R1": {"infiniband.bth.psn": 0x288, "infiniband.bth.opcode": 0x08, "metaroce.mxh.ver": 1,
              "metaroce.mxh.retx": 1, "metaroce.mxh.tsv": 1, "metaroce.mxh.ar": 1,
              "metaroce.mxh.ev": 0xC00B, "metaroce.mxh.plane": 1, "metaroce.mxh.msn": 10,
              "metaroce.mxh.offset": 0x1FC00, "metaroce.mxh.txts": 0x30000,
              "infiniband.reth.va": 0x30000000, "infiniband.reth.r_key": 0x5678,
              "infiniband.reth.dmalen": 127 * 1024 + 16},
    "EX-R2": {"infiniband.bth.psn": 0x22F, "infiniband.aeth.syndrome": 0x1F, "infiniband.aeth.msn": 9,
              "metaroce.sack.flags": 0x06, "metaroce.sack.tse": 1, "metaroce.sack.ara": 1,
              "metaroce.sack.ref": 0x230, "metaroce.sack.offset": 32, "metaroce.sack.base": 0x250,
              "metaroce.sack.bitmap": 0x0107FFFFFFFFFFFF, "metaroce.sack.ev_echo": 0xC00B,
              "metaroce.sack.plane_echo": 1, "metaroce.sack.service_time": 2,
              "metaroce.sack.ts_echo": 0x30000,
              "metaroce.sack.psn": list(range(0x250, 0x283)) + [0x288]},
    "EX-R3": {"infiniband.aeth.syndrome": 0x69, "infiniband.bth.psn": 0x289,
              "metaroce.sack.ref": 0x288, "metaroce.sack.bitmap": 0x1, "metaroce.sack.psn": [0x288]},
    "EX-R4": {"infiniband.bth.opcode": 0x1A, "infiniband.bth.tver": 1, "infiniband.bth.a": 1,
              "infiniband.bth.psn": 0x289, "metaroce.mxh.msn": 11, "metaroce.mxh.rqsn": 0,
              "metaroce.mxh.offset": 0, "metaroce.rsyneth.code": 1, "metaroce.rsyneth.end": 1,
              "metaroce.rsyneth.count": 1},
    "EX-S1": {"infiniband.bth.opcode": 0x04, "infiniband.bth.psn": 1, "infiniband.bth.a": 1,
              "metaroce.bth.sx": 1, "infiniband.bth.reserved7": 0x40, "metaroce.mxh.msn": 1,
              "metaroce.mxh.rqsn": 1, "metaroce.mxh.ev": 0xC021, "metaroce.mxh.txts": 0x40000,
              "metaroce.sech.ver": 1, "metaroce.sech.suite": 1, "metaroce.sech.epoch": 1,
              "metaroce.sech.spi": 0x101, "metaroce.sech.pn": 1},
    "EX-S2": {"infiniband.bth.psn": 1, "infiniband.bth.a": 0, "metaroce.bth.sx": 1,
              "infiniband.bth.reserved7": 0x40, "metaroce.sech.ver": 1, "metaroce.sech.suite": 1,
              "metaroce.sech.epoch": 1, "metaroce.sech.spi": 0x202, "metaroce.sech.pn": 1,
              "infiniband.aeth.syndrome": 0x1F, "infiniband.aeth.msn": 1, "metaroce.sack.ref": 0,
              "metaroce.sack.bitmap": 0x3, "metaroce.sack.ev_echo": 0xC021,
              "metaroce.sack.ts_echo": 0x40000},
    "EX-C1": {"infiniband.bth.psn": 0x208, "infiniband.aeth.syndrome": 0x1F, "infiniband.aeth.msn": 9,
              "metaroce.sack.flags": 0x85, "metaroce.sack.ece": 1, "metaroce.sack.tse": 1,
              "metaroce.sack.crv": 1, "metaroce.sack.ref": 0x208, "metaroce.sack.bitmap": 0x01,
              "metaroce.sack.ev_echo": 0xC00A, "metaroce.sack.plane_echo": 0, "metaroce.sack.mpr": 8,
              "metaroce.sack.ce_count": 1, "metaroce.sack.service_time": 2,
              "metaroce.sack.ts_echo": 0x1E300, "metaroce.sack.offset": 0,
              "metaroce.sack.credit_limit": 0x240},
    "EX-C2": {"infiniband.bth.opcode": 0x19, "infiniband.bth.tver": 1, "infiniband.bth.destqp": 0x11,
              "infiniband.bth.a": 0, "infiniband.bth.psn": 0x208, "metaroce.creth.ver": 1,
              "metaroce.creth.credit_limit": 0x280},
    "EX-C3": {"infiniband.bth.psn": 0x209, "metaroce.mxh.ev": 0xC00E, "metaroce.mxh.msn": 10,
              "metaroce.mxh.rqsn": 4, "metaroce.mxh.offset": 0, "metaroce.mxh.pending": 5,
              "metaroce.payload": b"MetaRoCE".hex()},
}


def frame_of(example):
    b = bytes.fromhex(example["hex"])
    return ether(b) if example["layer"] == "ip" else b


def l4_of(frame):
    ip = icrc.strip_ethernet(frame)
    hlen, end = icrc.split(ip)
    return ip[hlen + 8:end]


def with_l4(frame, l4):
    """`frame` with its BTH .. pad (.. tag) replaced by `l4`: IP and UDP lengths, the IPv4
    header checksum and the ICRC recomputed, Ethernet header and VLAN tag kept."""
    ip = icrc.strip_ethernet(frame)
    hlen, _ = icrc.split(ip)
    hdr = bytearray(ip[:hlen + 8])
    udp_len = 8 + len(l4) + 4
    if hdr[0] >> 4 == 4:
        hdr[2:4] = (hlen + udp_len).to_bytes(2, "big")
        hdr[10:12] = b"\0\0"
        hdr[10:12] = examples.csum16(bytes(hdr[:hlen])).to_bytes(2, "big")
    else:
        hdr[4:6] = udp_len.to_bytes(2, "big")
    hdr[hlen + 4:hlen + 6] = udp_len.to_bytes(2, "big")
    body = bytes(hdr) + bytes(l4)
    return frame[:len(frame) - len(ip)] + body + icrc.compute(body)


def sx_frames(rng, ext, count):
    """SX both ways: (label, frame) pairs whose only reading is the one SX gives.

    Cleared: EX-S1, EX-S2 and `count` random secure frames with SX set to 0 (same bytes,
    new ICRC): table 19.1 alone, the SECH bytes read as the first header. Set: `count`
    random non-secure frames grown by a SECH after the BTH and a tag before the ICRC,
    with SX set: SECH, the same headers, payload, tag."""
    out = []
    secure = [(e["id"], frame_of(e)) for e in ext if e["id"].startswith("EX-S")]
    secure += [("random secure %d" % i, random_frame(rng, force_secure=True)[0])
               for i in range(count)]
    for label, fr in secure:
        l4 = bytearray(l4_of(fr)[:-4])
        assert l4[8] & SX_MASK
        l4[8] &= ~SX_MASK & 0xFF
        out.append(("%s, SX cleared" % label, with_l4(fr, l4)))
    for i in range(count):
        fr, _ = random_frame(rng, force_secure=False)
        l4 = bytearray(l4_of(fr)[:-4])
        l4[8] |= SX_MASK
        sech = (bytes([0x11, 0]) + rng.getrandbits(16).to_bytes(2, "big")
                + rng.getrandbits(32).to_bytes(4, "big")
                + (rng.getrandbits(63) | 1).to_bytes(8, "big")
                + bytes(rng.getrandbits(8) for _ in range(8)))
        tag = bytes(rng.getrandbits(8) for _ in range(16))
        out.append(("random %d (opcode 0x%02x), SX set" % (i, l4[0]),
                    with_l4(fr, bytes(l4[:12]) + sech + bytes(l4[12:]) + tag)))
    return out


SECH_FIELDS = [f[0] for f in SECH] + ["metaroce.sech.tag"]


def faulty_frames(rng):
    """(name, frame, expert substring) for the planted faults."""
    out = []

    def build(opcode, edit, v6=False):
        hset = HEADER_SETS[opcode]
        l4 = bytearray(bytes.fromhex("00 01 ffff 00 000012 80 000100".replace(" ", "")))
        l4[0] = opcode
        for h in hset:
            b = bytearray(SIZES[h])
            if h in ("MXH", "CRETH"):
                b[0] = 0x10
            if h == "RSYNETH":
                b[0:4] = bytes.fromhex("01800001")
            if h == "AETH":
                b[0:4] = bytes.fromhex("1f000001")
            if h == "SACKETH":
                b[1:4] = (0x100).to_bytes(3, "big")
            l4 += b
        edit(l4)
        return ether(ip_udp(bytes(l4), v6, 0xC001))

    def setb(i, v):
        def f(l4):
            l4[i] = v
        return f

    def secure_frame(opcode, edit):
        fr, _ = random_frame(rng, force_secure=True, opcodes=[opcode])
        l4 = bytearray(l4_of(fr)[:-4])
        edit(l4)
        return with_l4(fr, l4)

    # BTH PSN 0x000100 -> an ACK's SACK reference must be 0x000100
    out.append(("MXH reserved byte 8", build(0x04, setb(12 + 8, 0x5A)), "MXH: reserved bits set"))
    out.append(("BTH Resv7", build(0x04, setb(8, 0x81)), "BTH: reserved bits set"))
    out.append(("CRETH reserved", build(0x19, setb(13, 0x01)), "CRETH: reserved bits set"))
    out.append(("RSYNETH reserved", build(0x1A, setb(12 + 20 + 1, 0x81)), "RSYNETH: reserved bits set"))
    out.append(("SACK offset 12", build(0x11, setb(12 + 4 + 25, 12)), "not a multiple of 8"))
    out.append(("SACK reference", build(0x11, setb(12 + 4 + 3, 0x08)), "SACK reference 0x000108"))
    out.append(("MXH Ver 2", build(0x04, setb(12, 0x20)), "MXH Ver 2"))
    # SX (section 19.4): only bits 5:0 of an Ext Resv7 are reserved; SX = 1 needs room
    out.append(("BTH Resv7 bit 0 with SX", secure_frame(0x04, setb(8, 0xC1)), "BTH: reserved bits set"))
    out.append(("SX on a SEND without SECH", build(0x04, setb(8, 0xC0)), "SX = 1 but 36 bytes cannot hold"))
    out.append(("SX on an ACK without SECH", build(0x11, setb(8, 0x40)), "SX = 1 but 48 bytes cannot hold"))

    def cut_tag(l4):
        del l4[-16:]
    out.append(("SX, tag cut off", secure_frame(0x11, cut_tag), "SX = 1 but 72 bytes cannot hold"))

    def shorten(l4):
        del l4[-10:]
    out.append(("short SACKETH", build(0x11, shorten), "SACKETH shorter than 28 bytes"))
    f = bytearray(build(0x0A, lambda l4: None))
    f[-1] ^= 0xFF
    out.append(("bad ICRC", bytes(f), "ICRC mismatch"))
    return out


def cm_req_with_mxcap():
    """A RoCEv2 RDMA CM REQ MAD (UD SEND_ONLY to QP1) whose private data starts with MXCAP."""
    mxcap = b"MRX1" + bytes([1, 0x1F, 0, 8, 2, 0x03]) + struct.pack("!H", 64) + bytes(4)
    bth = bytes.fromhex("64 00 ffff 00 000001 00 000000".replace(" ", ""))
    deth = struct.pack("!I", 0x80010000) + bytes.fromhex("00000001")
    mad = struct.pack("!BBBBHH", 1, 0x07, 2, 0x03, 0, 0) + bytes(8) + struct.pack("!HHI", 0x0010, 0, 0)
    req = bytearray(232)
    req[140:140 + 16] = mxcap   # REQ private data starts at byte 140 of the CM message
    l4 = bth + deth + mad + bytes(req)
    return ether(ip_udp(l4, False, 0xC123)), mxcap


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)) + fr)


def run_tshark(tshark, pcap, fields, lua=True):
    cmd = [tshark, "-n"] + (["-X", "lua_script:" + LUA] if lua else []) + [
        "-r", pcap, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
        "-E", "aggregator=|"]
    for f in fields:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = [line.split("\t") for line in p.stdout.splitlines()]
    return [dict(zip(fields, r)) for r in rows], p.stderr


def lua_errors(stderr):
    return [l for l in stderr.splitlines() if "Lua" in l or "lua" in l]


def norm(field, text):
    """tshark's text for one field as the Python value (list for repeated fields)."""
    if text == "":
        return None
    vals = text.split("|")
    out = []
    for v in vals:
        if field in ("infiniband.immdt", "infiniband.ieth", "metaroce.sech.htag",
                     "metaroce.payload", "metaroce.sech.tag"):
            out.append(v.replace(":", ""))
        elif v in ("True", "False"):
            out.append(int(v == "True"))
        else:
            out.append(int(v, 0))
    return out if field == "metaroce.sack.psn" else out[0] if len(out) == 1 else out


def compare(label, row, want, failures):
    bad = 0
    for k, v in want.items():
        got = norm(k, row.get(k, ""))
        if got != v:
            bad += 1
            if len(failures) < 30:
                failures.append("%s: %s = %r, want %r" % (label, k, got, v))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tshark", default="/usr/bin/tshark")
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, default=4791)
    ap.add_argument("--keep", help="write the pcaps to this directory")
    args = ap.parse_args()
    t0 = time.time()
    tmp = args.keep or tempfile.mkdtemp(prefix="metaroce_lua_")
    os.makedirs(tmp, exist_ok=True)
    failures, checks = [], 0

    examples = json.load(open(CLAUSES))["examples"]
    ext = [e for e in examples if e["id"][:4] in ("EX-E", "EX-R", "EX-C", "EX-S")]
    base = [e for e in examples if e["id"].startswith("EX-B")]
    rng = random.Random(args.seed)
    frames, wants, labels = [], [], []
    for e in ext:
        fr = frame_of(e)
        want = decode_reference(l4_of(fr))
        stated = EXAMPLE_VALUES.get(e["id"], {})
        # the reference decode and the spec text must agree before tshark is compared
        for k, v in stated.items():
            if want.get(k) != v:
                failures.append("%s: reference decode %s = %r, spec text %r" % (e["id"], k, want.get(k), v))
        want.update(stated)
        want["metaroce.icrc.computed"] = want["infiniband.invariant.crc"]
        frames.append(fr), wants.append(want), labels.append(e["id"])
    for i in range(args.count):
        fr, want = random_frame(rng)
        ref = decode_reference(l4_of(fr))
        for k, v in want.items():
            if k != "metaroce.icrc.computed" and ref.get(k) != v:
                failures.append("random %d: builder %s = %r, reference decode %r" % (i, k, v, ref.get(k)))
        frames.append(fr), wants.append(want), labels.append("random %d (opcode 0x%02x)" % (i, want["infiniband.bth.opcode"]))
    opcodes = set()
    pcap = os.path.join(tmp, "ext.pcap")
    write_pcap(pcap, frames)
    rows, stderr = run_tshark(args.tshark, pcap, ASKED)
    if lua_errors(stderr):
        failures.append("Lua errors on stderr: %s" % lua_errors(stderr)[:3])
    if len(rows) != len(frames):
        failures.append("tshark gave %d rows for %d frames" % (len(rows), len(frames)))
    bad_frames = 0
    for label, row, want in zip(labels, rows, wants):
        opcodes.add(want.get("infiniband.bth.opcode"))
        checks += len(want)
        n = compare(label, row, want, failures)
        if row.get("_ws.col.Protocol") != "MetaRoCE":
            n += 1
            failures.append("%s: protocol column %r" % (label, row.get("_ws.col.Protocol")))
        experts = [m for m in row.get("_ws.expert.message", "").split("|")
                   if m and not m.startswith("Extension NAK") and "UDP" not in m
                   and "checksum" not in m.lower()]
        if experts:
            n += 1
            failures.append("%s: unexpected expert info %s" % (label, experts))
        bad_frames += n > 0
    missing = set(HEADER_SETS) - opcodes
    if missing:
        failures.append("opcodes never built: %s" % sorted(missing))
    print("ext frames: %d (%d examples, %d random; %d opcodes), %d field checks, %d frames wrong"
          % (len(frames), len(ext), args.count, len(opcodes), checks, bad_frames))

    # SX both ways: the same bytes are secure or not as SX says, nothing else.
    sx = sx_frames(rng, ext, max(args.count // 6, 20))
    spcap = os.path.join(tmp, "sx.pcap")
    write_pcap(spcap, [f for _, f in sx])
    srows, stderr = run_tshark(args.tshark, spcap, ASKED)
    if lua_errors(stderr):
        failures.append("Lua errors on stderr (SX): %s" % lua_errors(stderr)[:3])
    if len(srows) != len(sx):
        failures.append("tshark gave %d rows for %d SX frames" % (len(srows), len(sx)))
    n_set = n_bad = sx_checks = 0
    for (label, fr), row in zip(sx, srows):
        want = decode_reference(l4_of(fr))
        is_set = want["metaroce.bth.sx"] == 1
        n_set += is_set
        if not is_set:
            want.update({k: None for k in SECH_FIELDS})  # no SECH, no tag
        else:
            for k in ("metaroce.sech.ver", "metaroce.sech.tag"):
                if k not in want:
                    failures.append("%s: reference decode has no %s" % (label, k))
        want["metaroce.icrc.computed"] = want["infiniband.invariant.crc"]
        sx_checks += len(want)
        n_bad += compare(label, row, want, failures) > 0
    print("SX both ways: %d frames with SX cleared dissect without SECH, %d with SX set with it; "
          "%d field checks, %d frames wrong" % (len(sx) - n_set, n_set, sx_checks, n_bad))

    # Planted faults draw their expert info.
    faults = faulty_frames(rng)
    fpcap = os.path.join(tmp, "faults.pcap")
    write_pcap(fpcap, [f for _, f, _ in faults])
    frows, stderr = run_tshark(args.tshark, fpcap, ["frame.number", "_ws.expert.message"])
    if lua_errors(stderr):
        failures.append("Lua errors on stderr (faults): %s" % lua_errors(stderr)[:3])
    for (name, _, text), row in zip(faults, frows):
        if text not in row.get("_ws.expert.message", ""):
            failures.append("fault %r: no expert info containing %r (got %r)"
                            % (name, text, row.get("_ws.expert.message")))
    print("planted faults: %d, each with its expert info" % len(faults))

    # MXCAP in a CM REQ's private data.
    cm, mxcap = cm_req_with_mxcap()
    cpcap = os.path.join(tmp, "cm.pcap")
    write_pcap(cpcap, [cm])
    cfields = ["metaroce.mxcap.magic", "metaroce.mxcap.version", "metaroce.mxcap.features",
               "metaroce.mxcap.mpr", "metaroce.mxcap.planes", "metaroce.mxcap.features2",
               "metaroce.mxcap.ev_count"]
    crows, stderr = run_tshark(args.tshark, cpcap, cfields)
    got = crows[0] if crows else {}
    want_cm = {"metaroce.mxcap.magic": "MRX1", "metaroce.mxcap.version": "1",
               "metaroce.mxcap.features": "0x1f", "metaroce.mxcap.mpr": "8",
               "metaroce.mxcap.planes": "2", "metaroce.mxcap.features2": "0x03",
               "metaroce.mxcap.ev_count": "64"}
    if got != want_cm or lua_errors(stderr):
        failures.append("MXCAP in CM REQ: got %r, want %r %s" % (got, want_cm, lua_errors(stderr)))
    print("MXCAP in RDMA CM REQ private data: %s" % ("ok" if got == want_cm else "WRONG"))

    # TVer 0: the same tree with and without the script.
    bpcap = os.path.join(tmp, "base.pcap")
    write_pcap(bpcap, [frame_of(e) for e in base])
    tver0 = [bpcap] + sorted(glob.glob(os.path.join(ROOT, "pcaps", "rxe", "*.pcap*")))
    nframes = 0
    for p in tver0:
        outs = []
        for lua in (False, True):
            cmd = [args.tshark, "-n"] + (["-X", "lua_script:" + LUA] if lua else []) + ["-r", p, "-V"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if lua and lua_errors(r.stderr):
                failures.append("%s: Lua errors %s" % (p, lua_errors(r.stderr)[:3]))
            outs.append([l for l in r.stdout.splitlines() if "[Protocols in frame:" not in l])
        nframes += sum(1 for l in outs[0] if l.startswith("Frame "))
        if outs[0] != outs[1]:
            diff = [(a, b) for a, b in zip(*outs) if a != b][:3]
            failures.append("%s: -V differs with the script: %s" % (os.path.basename(p), diff))
        elif nframes == 0:
            failures.append("%s: no frames" % p)
    print("TVer-0 frames dissected as without the script: %d in %d captures" % (nframes, len(tver0)))

    print("%.1f s" % (time.time() - t0))
    if failures:
        print("FAIL (%d):" % len(failures))
        for f in failures[:30]:
            print("  " + f)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
