#!/usr/bin/python3
"""Tests for tools/scapy/metaroce.py against the spec (docs/spec/metaroce.md).

  /usr/bin/python3 tools/scapy/metaroce_test.py      (METAROCE_SEED=N to replay a seed)

Every Part II worked example of section 27 is built from the fields its text states and
compared byte for byte with the hex in docs/spec/clauses.json, then dissected and its
fields checked. The ICRC of random frames is checked with docs/spec/tools/icrc.py, an
implementation independent of Scapy's. TVer-0 frames must dissect as with Part II off.
Secure packets are found by the BTH's SX bit alone (section 19.4): no setting is made.
"""
import json
import os
import random
import struct
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "docs", "spec", "tools"))

import metaroce as mr  # noqa: E402
import icrc as spec_icrc  # noqa: E402  (docs/spec/tools/icrc.py)
from scapy.config import conf  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import rdpcap, wrpcap  # noqa: E402
from scapy.fields import BitEnumField, BitField, SignedShortField, StrFixedLenField  # noqa: E402

T4, D4 = "198.18.0.1", "198.18.0.2"
T6, D6 = "2001:db8::1", "2001:db8::2"
SX_OFFSET = 8               # BTH byte 8: AckReq (bit 7), SX (bit 6), reserved bits 5:0


def load_examples():
    with open(os.path.join(ROOT, "docs", "spec", "clauses.json")) as f:
        return {e["id"]: bytes.fromhex(e["hex"]) for e in json.load(f)["examples"]}


def ip4(tos, ident, sport, to_dut=True):
    src, dst = (T4, D4) if to_dut else (D4, T4)
    return (IP(tos=tos, id=ident, flags="DF", ttl=64, src=src, dst=dst)
            / UDP(sport=sport, dport=4791, chksum=0))


def ip6(tc, fl, sport, to_dut=True):
    src, dst = (T6, D6) if to_dut else (D6, T6)
    return IPv6(tc=tc, fl=fl, hlim=64, src=src, dst=dst) / UDP(sport=sport, dport=4791, chksum=0)


def ext_bth(opcode, dqpn, psn, ackreq=0):
    return mr.BTH(opcode=opcode, version=1, dqpn=dqpn, psn=psn, ackreq=ackreq)


# The fields each example's text states, layer by layer (section 27).
SPEC = {
    "EX-E1": [mr.MXH(tsv=1, plane=1, ev=0xC005, msn=7, rqsn=0, offset=2048, tx_timestamp=123456),
              mr.RETH(va=0x20000000, rkey=0x5678, dlen=0x818)],
    "EX-E2": [mr.AETH(syndrome=0x1F, msn=7),
              mr.SACKETH(tse=1, sack_ref=0x200, bitmap=0x6F, ev_echo=0xC005, plane_echo=1, mpr=8,
                         ce_count=0, service_time=3, ts_echo=0x1E240, sack_offset=0, credit=0)],
    "EX-E3": [mr.AETH(syndrome=0x65, msn=7),
              mr.SACKETH(trm=1, tse=1, sack_ref=0x200, bitmap=0x6F, ev_echo=0xC009, plane_echo=0,
                         mpr=8, service_time=2, ts_echo=0x1E2A0)],
    "EX-E4": [mr.MXH(tsv=1, plane=2, ev=0x4C11, msn=0, offset=0, tx_timestamp=200000)],
    "EX-E5": [mr.AETH(syndrome=0x1F, msn=7),
              mr.SACKETH(prb=1, tse=1, sack_ref=0x200, bitmap=0x7F, ev_echo=0x4C11, plane_echo=2,
                         mpr=8, service_time=1, ts_echo=0x30D40)],
    "EX-E6": [mr.MXH(tsv=1, ev=0xC00A, msn=9, rqsn=3, offset=0, tx_timestamp=0x1E300)],
    "EX-R1": [mr.MXH(retx=1, tsv=1, ar=1, plane=1, ev=0xC00B, msn=10, offset=0x1FC00,
                     tx_timestamp=0x30000),
              mr.RETH(va=0x30000000, rkey=0x5678, dlen=127 * 1024 + 16)],
    "EX-R2": [mr.AETH(syndrome=0x1F, msn=9),
              mr.SACKETH(tse=1, ara=1, sack_ref=0x230, sack_offset=32, bitmap=0x0107FFFFFFFFFFFF,
                         ev_echo=0xC00B, plane_echo=1, mpr=8, service_time=2, ts_echo=0x30000)],
    "EX-R3": [mr.AETH(syndrome=0x69, msn=10),
              mr.SACKETH(tse=1, sack_ref=0x288, bitmap=0x1, ev_echo=0xC00E, plane_echo=0, mpr=8,
                         service_time=1, ts_echo=0x30400)],
    "EX-R4": [mr.MXH(tsv=1, plane=1, ev=0xC00F, msn=11, rqsn=0, offset=0, tx_timestamp=0x30800),
              mr.RSYNETH(code=1, end=1, count=1)],
    "EX-S1": [mr.SECH(ver=1, suite=1, epoch=1, spi=0x101, pn=1,
                      htag=bytes.fromhex("bde3b84d2b7b9b59")),
              mr.MXH(tsv=1, ev=0xC021, msn=1, rqsn=1, tx_timestamp=0x40000),
              mr.SecTag(ciphertext=bytes.fromhex("fdcaccef3e1b85f1"),
                        tag=bytes.fromhex("d146dd10ef9093a99b84688bd4f9ba9c"))],
    "EX-S2": [mr.SECH(epoch=1, spi=0x202, pn=1, htag=bytes.fromhex("0b2b5ac3c083330f")),
              mr.AETH(syndrome=0x1F, msn=1),
              mr.SACKETH(tse=1, sack_ref=0, bitmap=0x3, ev_echo=0xC021, mpr=8, service_time=2,
                         ts_echo=0x40000),
              mr.SecTag(ciphertext=b"", tag=bytes.fromhex("f906c3ef0c71fe183126b19e87adbc40"))],
    "EX-C1": [mr.AETH(syndrome=0x1F, msn=9),
              mr.SACKETH(ece=1, tse=1, crv=1, sack_ref=0x208, bitmap=0x01, ev_echo=0xC00A,
                         plane_echo=0, mpr=8, ce_count=1, service_time=2, ts_echo=0x1E300,
                         sack_offset=0, credit=0x240)],
    "EX-C2": [mr.CRETH(ver=1, credit=0x280)],
    "EX-C3": [mr.MXH(tsv=1, ev=0xC00E, pending=5, msn=10, rqsn=4, offset=0,
                     tx_timestamp=0x1E400)],
}

# The encapsulation, BTH and payload of each example.
FRAME = {
    "EX-E1": lambda: (Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")
                      / ip4(0x6A, 0x09, 0xC005) / ext_bth(0x08, 0x12, 0x202, ackreq=1),
                      bytes(range(24))),
    "EX-E2": lambda: (ip4(0xB8, 0x0A, 0xC006, False) / ext_bth(0x11, 0x11, 0x203), None),
    "EX-E3": lambda: (ip4(0xB8, 0x0B, 0xC007, False) / ext_bth(0x11, 0x11, 0x204), None),
    "EX-E4": lambda: (ip6(0x6A, 0x24C11, 0xCC18)
                      / ext_bth(0x18, 0x12, 0x208, ackreq=1), None),
    "EX-E5": lambda: (ip6(0xB8, 0x04C02, 0xCC03, False) / ext_bth(0x11, 0x11, 0x206), None),
    "EX-E6": lambda: (ip4(0x6A, 0x0C, 0xC00A) / ext_bth(0x04, 0x12, 0x208, ackreq=1),
                      b"MetaRoCE"),
    "EX-R1": lambda: (ip4(0x6A, 0x0D, 0xC00B) / ext_bth(0x08, 0x12, 0x288, ackreq=1),
                      bytes(range(0x40, 0x50))),
    "EX-R2": lambda: (ip4(0xB8, 0x0E, 0xC00C, False) / ext_bth(0x11, 0x11, 0x22F), None),
    "EX-R3": lambda: (ip4(0xB8, 0x0F, 0xC00D, False) / ext_bth(0x11, 0x11, 0x289), None),
    "EX-R4": lambda: (ip4(0xB8, 0x10, 0xC00F) / ext_bth(0x1A, 0x12, 0x289, ackreq=1), None),
    "EX-S1": lambda: (ip4(0x6A, 0x11, 0xC021) / ext_bth(0x04, 0x22, 0x001, ackreq=1), None),
    "EX-S2": lambda: (ip4(0xB8, 0x12, 0xC022, False) / ext_bth(0x11, 0x21, 0x001), None),
    "EX-C1": lambda: (ip4(0xB8, 0x0D, 0xC00C, False) / ext_bth(0x11, 0x11, 0x208), None),
    "EX-C2": lambda: (ip4(0xB8, 0x0E, 0xC00D, False) / ext_bth(0x19, 0x11, 0x208), None),
    "EX-C3": lambda: (ip4(0x6A, 0x0F, 0xC00E) / ext_bth(0x04, 0x12, 0x209, ackreq=1),
                      b"MetaRoCE"),
}


def build_example(ex):
    pkt, payload = FRAME[ex]()
    for layer in SPEC[ex]:
        pkt = pkt / layer.copy()
    if payload is not None:
        pkt = pkt / Raw(payload)
    return pkt


def dissect(data):
    """Dissect an Ethernet frame or an IP packet, as the example's layer says."""
    if data[0] >> 4 == 4 and len(data) > 14 and data[12:14] != b"\x08\x00":
        return IP(data)
    if data[0] >> 4 == 6:
        return IPv6(data)
    return Ether(data)


def layer_fields(pkt):
    """[(layer name, {field: value})] for every layer of a dissected or built packet."""
    out = []
    while pkt is not None and pkt.__class__.__name__ != "NoPayload":
        out.append((pkt.__class__.__name__,
                    {f.name: pkt.getfieldval(f.name) for f in pkt.fields_desc}))
        pkt = pkt.payload if pkt.payload else None
    return out


def chain_of(pkt):
    """The layer classes after the BTH of a dissected packet, up to a Raw payload."""
    got, p = [], pkt[mr.BTH].payload
    while p and not isinstance(p, Raw):
        got.append(type(p))
        p = p.payload
    return got, p


def with_byte(data, off, value):
    return data[:off] + bytes([value]) + data[off + 1:]


def grow_secure(data, sech, tag, sx):
    """An example's frame or IP packet with `sech` put after the BTH, `tag` before the
    ICRC, the IP and UDP lengths grown to match and SX set to `sx` (the ICRC is left as
    it was: Scapy does not check it on dissection)."""
    ip = 14 if data[0] >> 4 not in (4, 6) else 0
    v6 = data[ip] >> 4 == 6
    udp = ip + (40 if v6 else 20)
    b = bytearray(data)
    grow = len(sech) + len(tag)
    for off in ((ip + 4) if v6 else (ip + 2), udp + 4):
        b[off:off + 2] = (int.from_bytes(b[off:off + 2], "big") + grow).to_bytes(2, "big")
    bth = udp + 8
    b[bth + SX_OFFSET] = (b[bth + SX_OFFSET] & ~mr.BTH_RESV7_SX & 0xFF) | (sx << 6)
    return bytes(b[:bth + 12]) + sech + bytes(b[bth + 12:-4]) + tag + bytes(b[-4:])


class WorkedExamples(unittest.TestCase):
    """Section 27: every Part II example both ways, byte for byte."""

    @classmethod
    def setUpClass(cls):
        cls.hex = load_examples()

    def test_every_part2_packet_example_is_covered(self):
        part2 = {e for e in self.hex if not e.startswith("EX-B")}
        self.assertEqual(part2, set(SPEC))

    def test_build(self):
        for ex in SPEC:
            with self.subTest(ex=ex):
                self.assertEqual(bytes(build_example(ex)).hex(), self.hex[ex].hex())

    def test_dissect(self):
        for ex, layers in SPEC.items():
            with self.subTest(ex=ex):
                pkt = dissect(self.hex[ex])
                bth = pkt[mr.BTH]
                self.assertEqual(bth.version, 1)
                # SX, read from the wire, is what makes EX-S* secure
                self.assertEqual(mr.bth_sx(bth), int(ex.startswith("EX-S")))
                want = [type(l) for l in layers]
                got, p = chain_of(pkt)
                self.assertEqual(got, want)
                for layer in layers:
                    d = pkt[type(layer)]
                    for name, value in layer.fields.items():
                        self.assertEqual(d.getfieldval(name), value, "%s.%s" % (layer.name, name))
                _, payload = FRAME[ex]()
                self.assertEqual(bytes(p) if isinstance(p, Raw) else b"", payload or b"")

    def test_icrc_ipv4_and_ipv6(self):
        # Scapy's ICRC (IPv4) and ours (IPv6) against the spec's icrc.py, on the examples.
        for ex in ("EX-E1", "EX-E4", "EX-E5", "EX-S1", "EX-C2"):
            with self.subTest(ex=ex):
                want, found = spec_icrc.check(bytes(build_example(ex)))
                self.assertEqual(want, found)

    def test_spec_text_details(self):
        h = self.hex
        self.assertEqual(dissect(h["EX-E1"])[mr.BTH].padcount, 0)
        self.assertEqual(bytes(dissect(h["EX-E1"])[mr.MXH])[:1], b"\x14")
        self.assertEqual(bytes(dissect(h["EX-R1"])[mr.MXH])[:1], b"\x1e")
        self.assertEqual(mr.syndrome_name(dissect(h["EX-E3"])[mr.AETH].syndrome), "NAK_TRIMMED")
        self.assertEqual(mr.syndrome_name(dissect(h["EX-R3"])[mr.AETH].syndrome),
                         "NAK_OP_REMOTE_ACCESS")
        self.assertEqual(mr.syndrome_name(0x69, ext=False), "0x69")
        self.assertEqual(mr.syndrome_name(0x1F), "ACK")
        self.assertEqual(dissect(h["EX-R4"])[mr.RSYNETH].sprintf("%code%"), "OP_ERROR")
        self.assertEqual(mr.ext_opcode_name(dissect(h["EX-C2"])[mr.BTH].opcode), "CREDIT")
        # BTH byte 8: EX-S1 0xC0 (AckReq, SX), EX-S2 0x40 (SX), EX-E6 0x80 (AckReq only)
        ip_bth = 20 + 8
        self.assertEqual(h["EX-S1"][ip_bth + SX_OFFSET], 0xC0)
        self.assertEqual(h["EX-S2"][ip_bth + SX_OFFSET], 0x40)
        self.assertEqual(h["EX-E6"][ip_bth + SX_OFFSET], 0x80)


class SxMarker(unittest.TestCase):
    """Section 19.4: BTH SX (resv7 bit 6) alone says whether SECH and SecTag are there."""

    @classmethod
    def setUpClass(cls):
        cls.hex = load_examples()

    def test_no_setting_left(self):
        self.assertFalse({"secure", "secure_dqpns"} & set(conf.contribs["metaroce"]))

    def test_sx_cleared_is_never_secure(self):
        # EX-S1 and EX-S2 with SX cleared: the same bytes dissect by table 19.1 alone.
        for ex in ("EX-S1", "EX-S2"):
            with self.subTest(ex=ex):
                data = self.hex[ex]
                off = 20 + 8 + SX_OFFSET
                pkt = dissect(with_byte(data, off, data[off] & ~mr.BTH_RESV7_SX & 0xFF))
                self.assertEqual(mr.bth_sx(pkt[mr.BTH]), 0)
                self.assertFalse(mr.is_secure(pkt[mr.BTH]))
                self.assertNotIn(mr.SECH, pkt)
                self.assertNotIn(mr.SecTag, pkt)
                got, _ = chain_of(pkt)
                self.assertEqual(got, mr.ext_opcode_headers(pkt[mr.BTH].opcode))

    def test_sx_set_is_always_secure(self):
        # Every non-secure Part II example with SX set and room made for a SECH (24 bytes
        # after the BTH) and a tag (16 bytes before the ICRC) dissects as SECH, its own
        # chain with the same field values, SecTag; with SX left 0 the same bytes do not.
        for ex, layers in SPEC.items():
            if ex.startswith("EX-S"):
                continue
            with self.subTest(ex=ex):
                sech, tag = bytes(range(0x80, 0x98)), bytes(range(0xE0, 0xF0))
                for sx in (1, 0):
                    pkt = dissect(grow_secure(self.hex[ex], sech, tag, sx))
                    bth = pkt[mr.BTH]
                    self.assertEqual((mr.bth_sx(bth), mr.is_secure(bth)), (sx, bool(sx)))
                    got, _ = chain_of(pkt)
                    if not sx:
                        self.assertNotIn(mr.SECH, got)
                        continue
                    self.assertEqual(got, [mr.SECH] + mr.ext_opcode_headers(bth.opcode)
                                     + [mr.SecTag])
                    self.assertEqual(bytes(pkt[mr.SECH])[:24], sech)
                    self.assertEqual(pkt[mr.SecTag].tag, tag)
                    for layer in layers:
                        d = pkt[type(layer)]
                        for name, value in layer.fields.items():
                            self.assertEqual(d.getfieldval(name), value,
                                             "%s.%s" % (layer.name, name))
                    _, payload = FRAME[ex]()
                    self.assertEqual(pkt[mr.SecTag].ciphertext, payload or b"")

    def test_tver0_and_unknown_opcode_have_no_sx(self):
        # TVer 0: all of resv7 is reserved; bit 6 set changes nothing.
        b = self.hex["EX-B1"]
        off = 14 + 20 + 8 + SX_OFFSET
        base = Ether(b)
        pkt = Ether(with_byte(b, off, b[off] | mr.BTH_RESV7_SX))
        self.assertEqual(pkt[mr.BTH].resv7, mr.BTH_RESV7_SX)
        self.assertEqual(mr.bth_sx(pkt[mr.BTH]), 0)
        self.assertFalse(mr.is_secure(pkt[mr.BTH]))
        self.assertEqual([n for n, _ in layer_fields(pkt)], [n for n, _ in layer_fields(base)])
        # TVer 1 with an opcode outside table 19.1: SX set, but no header set to protect.
        unknown = mr.BTH(opcode=0x15, version=1, resv7=mr.BTH_RESV7_SX)
        self.assertEqual(mr.bth_sx(unknown), 1)
        self.assertFalse(mr.is_secure(unknown))

    def test_build_sets_sx(self):
        self.assertEqual(mr.BTH_RESV7_SX, 0x40)
        # (icrc=0: a bare BTH has no IP/UDP to compute an ICRC over)
        sec = mr.BTH(bytes(mr.BTH(opcode=0x11, icrc=0) / mr.SECH() / mr.AETH() / mr.SACKETH()))
        self.assertEqual((sec.version, sec.resv7), (1, mr.BTH_RESV7_SX))
        self.assertEqual(bytes(sec)[SX_OFFSET], 0x40)
        plain = mr.BTH(bytes(mr.BTH(opcode=0x04, icrc=0) / mr.MXH()))
        self.assertEqual((plain.version, plain.resv7), (1, 0))
        # resv7 is one field: a value set by hand wins over the overload, SX included.
        self.assertEqual(mr.BTH(bytes(mr.BTH(resv7=0x41, icrc=0) / mr.SECH())).resv7, 0x41)
        self.assertEqual(mr.BTH(bytes(mr.BTH(resv7=0, icrc=0) / mr.SECH())).resv7, 0)


class SackBitmap(unittest.TestCase):
    def test_ex_e2(self):
        s = dissect(load_examples()["EX-E2"])[mr.SACKETH]
        self.assertEqual(s.bitmap_base(), 0x200)
        self.assertEqual(s.psns(), [0x200, 0x201, 0x202, 0x203, 0x205, 0x206])

    def test_ex_r2_offset(self):
        s = dissect(load_examples()["EX-R2"])[mr.SACKETH]
        self.assertEqual(s.bitmap_base(), 0x250)
        self.assertEqual(s.psns(), list(range(0x250, 0x283)) + [0x288])
        self.assertFalse(any(s.covers(p) for p in range(0x230, 0x250)))
        self.assertTrue(s.covers(0x28F) and not s.covers(0x290))

    def test_negative_offset_and_wrap(self):
        s = mr.SACKETH(sack_ref=0x000008, sack_offset=-16, bitmap=mr.sack_bitmap(0xFFFFF8, [0xFFFFF8, 0xFFFFFF, 0, 0x37, 0x38]))
        self.assertEqual(s.bitmap_base(), 0xFFFFF8)
        self.assertEqual(s.psns(), [0xFFFFF8, 0xFFFFFF, 0, 0x37])   # 0x38 is bit 64: left out
        self.assertEqual(mr.SACKETH(bytes(s)).sack_offset, -16)
        self.assertEqual(bytes(s)[24:26], b"\xff\xf0")

    def test_mxcap(self):
        cap = mr.MXCAP(features=0x1F, ev_mode=1, mpr=8, planes=2, features2=0x03, ev_count=16)
        self.assertEqual(len(bytes(cap)), 16)
        self.assertEqual(bytes(cap).hex(), "4d525831011f01080203001000000000")
        self.assertTrue(mr.MXCAP(bytes(cap)).enables_ext())
        self.assertFalse(mr.MXCAP(features=0x01).enables_ext())
        self.assertFalse(mr.MXCAP(magic=b"MRX2").enables_ext())


class BaseUnchanged(unittest.TestCase):
    """TVer-0 frames dissect exactly as with Part II dissection off (the base binding)."""

    def frames(self):
        ex = load_examples()
        out = [v for k, v in ex.items() if k.startswith("EX-B")]
        golden = os.path.join(ROOT, "pcaps", "golden", "golden.pcap")
        if os.path.exists(golden):
            out += [bytes(p) for p in rdpcap(golden)]
        return out

    def test_same_as_base(self):
        frames = self.frames()
        self.assertGreater(len(frames), 10)
        ext = [layer_fields(dissect(f)) for f in frames]
        conf.contribs["metaroce"]["ext"] = False
        try:
            base = [layer_fields(dissect(f)) for f in frames]
        finally:
            conf.contribs["metaroce"]["ext"] = True
        n0 = 0
        for f, a, b in zip(frames, ext, base):
            p = dissect(f)
            if mr.BTH in p and p[mr.BTH].version != 1:
                n0 += 1
                self.assertEqual(a, b)
                self.assertEqual(bytes(p), f)
        self.assertGreater(n0, 10)


def random_frame(r):
    """One Ext frame of a random table 19.1 opcode with every field random."""
    op = r.choice(sorted(mr.EXT_OPCODES))
    secure = r.random() < 0.15
    dqpn = r.choice([0x12, 0x11, 0x21, 0x22, r.randrange(0x100, 1 << 24)])
    # SX goes with the secure chain; reserved bits 5:0 are random either way
    resv7 = (mr.BTH_RESV7_SX if secure else 0) | r.getrandbits(6)
    bth = mr.BTH(opcode=op, version=1, solicited=r.getrandbits(1), migreq=r.getrandbits(1),
                 padcount=r.getrandbits(2), pkey=r.getrandbits(16), fecn=r.getrandbits(1),
                 becn=r.getrandbits(1), resv6=r.getrandbits(6), dqpn=dqpn,
                 ackreq=r.getrandbits(1), resv7=resv7, psn=r.getrandbits(24))
    headers = ([mr.SECH] if secure else []) + mr.ext_opcode_headers(op)
    pkt = bth
    for cls in headers:
        pkt = pkt / cls(**random_fields(r, cls))
    payload = bytes(r.getrandbits(8) for _ in range(r.choice([0, 1, 4, 63, 256]))) \
        if mr.EXT_OPCODES[op][2] else b""
    if secure:
        pkt = pkt / mr.SecTag(ciphertext=payload, tag=bytes(r.getrandbits(8) for _ in range(16)))
    elif payload:
        pkt = pkt / Raw(payload)
    if r.random() < 0.5:
        under = (IPv6(tc=r.getrandbits(8), fl=r.getrandbits(20), src=T6, dst=D6)
                 / UDP(sport=r.randrange(0xC000, 0x10000), dport=4791, chksum=0))
    else:
        under = (IP(tos=r.getrandbits(8), id=r.getrandbits(16), src=T4, dst=D4)
                 / UDP(sport=r.randrange(0xC000, 0x10000), dport=4791, chksum=0))
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    if r.random() < 0.5:
        eth = eth / Dot1Q(vlan=r.randrange(1, 4095), prio=r.getrandbits(3))
    return eth / under / pkt


def random_fields(r, cls):
    """Random values for every field of `cls` (reserved bits too: a layer must carry them)."""
    out = {}
    for f in cls.fields_desc:
        if isinstance(f, StrFixedLenField):
            out[f.name] = bytes(r.getrandbits(8) for _ in range(f.length_from(None)))
        elif isinstance(f, SignedShortField):
            out[f.name] = r.randrange(-32768, 32768)
        elif isinstance(f, (BitField, BitEnumField)):
            out[f.name] = r.getrandbits(f.size)
        else:
            out[f.name] = r.getrandbits(8 * struct.calcsize(f.fmt))
    return out


class RandomRoundTrip(unittest.TestCase):
    COUNT = 3000

    def test_round_trip(self):
        seed = int(os.environ.get("METAROCE_SEED", random.SystemRandom().randrange(1 << 32)))
        print("\nrandom round trip: METAROCE_SEED=%d, %d frames" % (seed, self.COUNT))
        r = random.Random(seed)
        t0 = time.time()
        built = [random_frame(r) for _ in range(self.COUNT)]
        wire = [bytes(p) for p in built]
        path = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "metaroce_rt_%d.pcap" % os.getpid())
        wrpcap(path, [Ether(w) for w in wire])
        try:
            read = rdpcap(path)
        finally:
            os.unlink(path)
        ops, n_secure = set(), 0
        for i, (p, w, q) in enumerate(zip(built, wire, read)):
            d = Ether(bytes(q))
            ops.add(d[mr.BTH].opcode)
            self.assertEqual(bytes(q), w, "frame %d (seed %d)" % (i, seed))
            self.assertEqual(layer_fields(d), layer_fields(Ether(w)))
            want = [(n, f) for n, f in layer_fields(p)[2:] if n not in ("UDP",)]
            got = [(n, f) for n, f in layer_fields(d)[2:] if n not in ("UDP",)]
            # compare everything above UDP (lengths and checksums are Scapy's).
            self.assertEqual(strip(want), strip(got), "frame %d (seed %d)" % (i, seed))
            # the secure chain is there exactly when SX is set
            secure = mr.SECH in p
            self.assertEqual(mr.bth_sx(d[mr.BTH]), int(secure), "SX of frame %d (seed %d)" % (i, seed))
            self.assertEqual(mr.SECH in d and mr.SecTag in d, secure, "frame %d (seed %d)" % (i, seed))
            n_secure += secure
            exp, found = spec_icrc.check(w)
            self.assertEqual(exp, found, "ICRC of frame %d (seed %d)" % (i, seed))
        self.assertEqual(ops, set(mr.EXT_OPCODES))
        self.assertGreater(n_secure, 0)
        self.assertLess(n_secure, self.COUNT)
        print("random round trip: %d secure (SX = 1), %.1f s" % (n_secure, time.time() - t0))


def strip(layers):
    """Drop the IP/UDP layers and the fields Scapy computes (lengths, checksums, ICRC)."""
    out = []
    for name, fields in layers:
        if name in ("IP", "IPv6", "UDP", "Dot1Q"):
            continue
        out.append((name, {k: v for k, v in fields.items() if k != "icrc"}))
    return out


if __name__ == "__main__":
    unittest.main(verbosity=2)
