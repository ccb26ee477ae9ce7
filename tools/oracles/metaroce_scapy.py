"""Scapy layers for the RoCEv2 extended transport headers that scapy.contrib.roce lacks.

Importing this module adds RDETH, DETH, FETH, RETH, AtomicETH, ImmDt, IETH and
AtomicAckETH (field names as in the metaroce decode JSON contract) and binds them, and
Scapy's AETH, after BTH by opcode, following the opcode table of reference/wire:

  RC 0x00-0x14, 0x16/0x17 (IETH), 0x1c FLUSH (FETH+RETH), 0x1d ATOMIC_WRITE (RETH);
  UC 0x20-0x2b; RD 0x40-0x54 (requests RDETH+DETH first, responses RDETH only); UD 0x64/0x65 (DETH); CNP 0x81.
  Header order after BTH: RDETH, DETH, FETH, RETH, AtomicETH, ImmDt|IETH, AETH,
  AtomicAckETH.

so that an expression such as
  BTH(opcode=0x0a)/RETH(va=1, rkey=2, dlen=64)/Raw(load=b"x"*64)
builds and dissects the wire layout our codec uses. It also teaches BTH the RoCEv2 ICRC
over IPv6 (Scapy 2.5 computes it over IPv4 only); that IPv6 code is checked against the
Linux rxe captures in pcaps/rxe/ (see rxe_check.py).

Use /usr/bin/python3 (Debian's python3-scapy 2.5).
"""

import struct
import zlib

from scapy.packet import Packet, bind_layers, split_layers
from scapy.fields import (BitField, ByteField, IntField, LongField, XBitField,
                          XIntField, XLongField)
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.config import conf
from scapy.contrib import roce as _roce
from scapy.contrib.roce import AETH, BTH, CNPPadding  # noqa: F401 (re-exported)

__all__ = ["BTH", "AETH", "CNPPadding", "RDETH", "DETH", "FETH", "RETH", "AtomicETH",
           "ImmDt", "IETH", "AtomicAckETH", "OPCODES", "opcode_headers", "opcode_name",
           "has_payload", "icrc_ipv6", "EXT_LAYERS"]


class RDETH(Packet):
    name = "RDETH"
    fields_desc = [ByteField("resv8", 0), BitField("eec", 0, 24)]


class DETH(Packet):
    name = "DETH"
    fields_desc = [XIntField("qkey", 0), ByteField("resv8", 0), BitField("sqpn", 0, 24)]


class FETH(Packet):
    name = "FETH"
    fields_desc = [BitField("resv", 0, 26), BitField("sel", 0, 2), BitField("plt", 0, 4)]


class RETH(Packet):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]


class AtomicETH(Packet):
    name = "AtomicETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), LongField("swap", 0),
                   LongField("comp", 0)]


class ImmDt(Packet):
    name = "ImmDt"
    fields_desc = [XIntField("imm", 0)]


class IETH(Packet):
    name = "IETH"
    fields_desc = [XIntField("rkey", 0)]


class AtomicAckETH(Packet):
    name = "AtomicAckETH"
    fields_desc = [XLongField("orig", 0)]


# Every extended header, in wire order after the BTH.
EXT_LAYERS = [RDETH, DETH, FETH, RETH, AtomicETH, ImmDt, IETH, AETH, AtomicAckETH, CNPPadding]

# ---- the opcode table (mirrors reference/wire/opcode.cpp, written independently) ----
_P = "payload"
# op: (name, headers, carries payload)
_RC_OPS = {
    0x00: ("SEND_FIRST", [], True),
    0x01: ("SEND_MIDDLE", [], True),
    0x02: ("SEND_LAST", [], True),
    0x03: ("SEND_LAST_WITH_IMMEDIATE", [ImmDt], True),
    0x04: ("SEND_ONLY", [], True),
    0x05: ("SEND_ONLY_WITH_IMMEDIATE", [ImmDt], True),
    0x06: ("RDMA_WRITE_FIRST", [RETH], True),
    0x07: ("RDMA_WRITE_MIDDLE", [], True),
    0x08: ("RDMA_WRITE_LAST", [], True),
    0x09: ("RDMA_WRITE_LAST_WITH_IMMEDIATE", [ImmDt], True),
    0x0a: ("RDMA_WRITE_ONLY", [RETH], True),
    0x0b: ("RDMA_WRITE_ONLY_WITH_IMMEDIATE", [RETH, ImmDt], True),
    0x0c: ("RDMA_READ_REQUEST", [RETH], False),
    0x0d: ("RDMA_READ_RESPONSE_FIRST", [AETH], True),
    0x0e: ("RDMA_READ_RESPONSE_MIDDLE", [], True),
    0x0f: ("RDMA_READ_RESPONSE_LAST", [AETH], True),
    0x10: ("RDMA_READ_RESPONSE_ONLY", [AETH], True),
    0x11: ("ACKNOWLEDGE", [AETH], False),
    0x12: ("ATOMIC_ACKNOWLEDGE", [AETH, AtomicAckETH], False),
    0x13: ("COMPARE_SWAP", [AtomicETH], False),
    0x14: ("FETCH_ADD", [AtomicETH], False),
    0x16: ("SEND_LAST_WITH_INVALIDATE", [IETH], True),
    0x17: ("SEND_ONLY_WITH_INVALIDATE", [IETH], True),
    0x1c: ("FLUSH", [FETH, RETH], False),
    0x1d: ("ATOMIC_WRITE", [RETH], True),
}

# opcode -> (name, [header classes in wire order], carries payload)
OPCODES = {}
for _op, (_n, _h, _pl) in _RC_OPS.items():
    OPCODES[_op] = ("RC_" + _n, list(_h), _pl)
    if _op <= 0x0b:
        OPCODES[0x20 | _op] = ("UC_" + _n, list(_h), _pl)
    if _op <= 0x14:
        # RD requests carry RDETH + DETH; responses (0x0d-0x12) carry RDETH only.
        _rd = [RDETH] if 0x0d <= _op <= 0x12 else [RDETH, DETH]
        OPCODES[0x40 | _op] = ("RD_" + _n, _rd + list(_h), _pl)
OPCODES[0x64] = ("UD_SEND_ONLY", [DETH], True)
OPCODES[0x65] = ("UD_SEND_ONLY_WITH_IMMEDIATE", [DETH, ImmDt], True)
OPCODES[0x81] = ("CNP", [CNPPadding], False)

# The payload of ATOMIC_WRITE is exactly 8 bytes.
FIXED_PAYLOAD = {0x1d: 8}


def opcode_headers(op):
    return OPCODES[op][1] if op in OPCODES else []


def opcode_name(op):
    return OPCODES[op][0] if op in OPCODES else "0x%02x" % op


def has_payload(op):
    return OPCODES[op][2] if op in OPCODES else True


def _bth_of(pkt):
    u = pkt.underlayer
    while u is not None and not isinstance(u, BTH):
        u = u.underlayer
    return u


def _next_after(pkt, payload):
    """The layer following `pkt` (an extended header) in the chain its BTH opcode implies."""
    bth = _bth_of(pkt)
    if bth is None:
        return conf.raw_layer
    chain = opcode_headers(bth.opcode)
    try:
        i = chain.index(type(pkt))
    except ValueError:
        return conf.raw_layer
    if i + 1 < len(chain):
        return chain[i + 1]
    return conf.raw_layer


for _cls in EXT_LAYERS:
    _cls.guess_payload_class = _next_after

# BTH -> first extended header, by opcode. Scapy itself binds AETH after 0x11 and 0x51
# and CNPPadding after 0x81; its RD_ACKNOWLEDGE binding skips the RDETH (and DETH) our
# table puts first, so drop it before binding the table.
split_layers(BTH, AETH, opcode=0x51)
for _op, (_n, _h, _pl) in sorted(OPCODES.items()):
    if _h:
        bind_layers(BTH, _h[0], opcode=_op)


# ---- ICRC over IPv6 (Scapy 2.5 has only IPv4) ----
def icrc_ipv6(ip6_bytes_to_end_of_payload):
    """ICRC over an IPv6 packet (IPv6 header .. last byte before the ICRC).

    RoCEv2: CRC-32 over 8 bytes of 0xFF, the IPv6 header with traffic class, flow label
    and hop limit set to ones, the UDP header with its checksum set to ones, the BTH with
    byte 4 (FECN, BECN, resv6) set to ones, then the rest. Returned as Scapy's icrc field
    holds it (the 4 wire bytes read big-endian)."""
    b = bytearray(ip6_bytes_to_end_of_payload)
    b[0] |= 0x0F          # low nibble of byte 0: traffic class high bits
    b[1] = 0xFF           # traffic class low bits + flow label high bits
    b[2] = 0xFF
    b[3] = 0xFF
    b[7] = 0xFF           # hop limit
    b[40 + 6] = 0xFF      # UDP checksum
    b[40 + 7] = 0xFF
    b[40 + 8 + 4] = 0xFF  # BTH byte 4
    crc = zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF
    return struct.unpack("!I", struct.pack("<I", crc))[0]


_scapy_compute_icrc = BTH.compute_icrc


def _compute_icrc(self, p):
    udp = self.underlayer
    ip = udp.underlayer if isinstance(udp, UDP) else None
    if isinstance(ip, IPv6):
        # Build the IPv6 packet (Scapy fills plen, UDP len) with a placeholder ICRC.
        pkt = ip.copy()
        pkt[BTH].icrc = 0
        raw6 = bytes(pkt)
        return struct.pack("!I", icrc_ipv6(raw6[:-4]))
    return _scapy_compute_icrc(self, p)


BTH.compute_icrc = _compute_icrc
