# scapy.contrib.description = MetaRoCE: RoCEv2 extended headers and the Part II extension headers (MXH, SACKETH, CRETH, RSYNETH, SECH, MXCAP)
# scapy.contrib.status = loads

"""Scapy layers for MetaRoCE: RoCEv2 (Part I) and its Part II extensions (revision 2).

One self-contained file: put its directory on sys.path and `import metaroce`, or copy it
into scapy/contrib/ and `load_contrib("metaroce")`. Specification: docs/spec/metaroce.md
of metaroce-conformance; field names are Scapy style (lower case), the words of the
spec's tables, and the names of the project's decode JSON.

Base (TVer 0, Part I). scapy.contrib.roce has BTH, AETH and CNPPadding; this module adds
RDETH, DETH, FETH, RETH, AtomicETH, ImmDt, IETH and AtomicAckETH and binds them, with
AETH, after BTH by opcode following the opcode table of the project's codec:

  RC 0x00-0x14, 0x16/0x17 (IETH), 0x1c FLUSH (FETH+RETH), 0x1d ATOMIC_WRITE (RETH);
  UC 0x20-0x2b; RD 0x40-0x54 (requests RDETH+DETH first, responses RDETH only);
  UD 0x64/0x65 (DETH); CNP 0x81.
  Header order after BTH: RDETH, DETH, FETH, RETH, AtomicETH, ImmDt|IETH, AETH,
  AtomicAckETH.

It also teaches BTH the RoCEv2 ICRC over IPv6 (Scapy 2.5 computes it over IPv4 only).

Extension mode (TVer 1, Part II sections 18-26). A BTH with version (TVer) 1 is followed
by the headers of the spec's table 19.1 for its opcode (EXT_OPCODES): MXH after the BTH of
requests, READ responses, PROBEs (0x18) and RESYNCs (0x1A, then RSYNETH); AETH then
SACKETH in ACKs (AETH, AtomicAckETH, SACKETH in atomic ACKs); CRETH alone in CREDIT
packets (0x19). Every packet of a QP with SECURE enabled has SX = 1 in its BTH (bit 6 of
Scapy's 7-bit field resv7, i.e. resv7 & BTH_RESV7_SX, section 19.4; see bth_sx and
is_secure): a SECH follows the BTH and SecTag (ciphertext then the 16-byte tag) ends the
packet. Dissection follows SX, so no setting is needed; building BTH()/SECH() sets SX.
Setting conf.contribs["metaroce"]["ext"] = False dissects every TVer as base, as a
decoder that knows only Part I does. MXCAP is the 16-byte capability block of CM private
data. TVer-0 packets build and dissect exactly as in base.

  Ether()/IP()/UDP(dport=4791)/BTH(opcode=0x0a, version=1, psn=5)/MXH(ev=0xc005)/
      RETH(va=0x1000, rkey=0x5678, dlen=4)/Raw(b"data")
  Ether()/IP()/UDP(dport=4791)/BTH(opcode=0x04, psn=1)/SECH(spi=0x101, pn=1)/
      MXH(msn=1)/SecTag(ciphertext=ct, tag=tag)        # TVer 1 and SX = 1 by overload

builds with a correct ICRC (IPv4 and IPv6), and rdpcap dissects it back.
Needs Scapy 2.5 (Debian's python3-scapy).
"""

import struct
import zlib

from scapy.packet import Packet, bind_layers, split_layers
from scapy.fields import (BitEnumField, BitField, ByteEnumField, ByteField, FlagsField,
                          IntField, LongField, ShortField, SignedShortField,
                          StrFixedLenField, StrLenField, XBitField, XByteField,
                          XIntField, XLongField, XShortField, XStrFixedLenField)
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.config import conf
from scapy.contrib import roce as _roce  # noqa: F401
from scapy.contrib.roce import AETH, BTH, CNPPadding  # noqa: F401 (re-exported)

__all__ = [
    # base
    "BTH", "AETH", "CNPPadding", "RDETH", "DETH", "FETH", "RETH", "AtomicETH",
    "ImmDt", "IETH", "AtomicAckETH", "OPCODES", "opcode_headers", "opcode_name",
    "has_payload", "icrc_ipv6", "EXT_LAYERS", "FIXED_PAYLOAD",
    # Part II
    "MXH", "SACKETH", "CRETH", "RSYNETH", "SECH", "SecTag", "MXCAP", "EXT_OPCODES",
    "EXT_VERSION", "OP_PROBE", "OP_CREDIT", "OP_RESYNC", "AETH_SYNDROMES",
    "EXT_NAK_SYNDROMES", "syndrome_name", "ext_opcode_headers", "ext_opcode_name",
    "header_chain", "is_secure", "bth_sx", "BTH_RESV7_SX", "sack_bitmap", "SECURE_TAG_LEN",
]


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
    """The layer following `pkt` (an extended header) in the chain its BTH implies.

    Scapy binds a layer to the one below it by field values, but the header after a RETH
    depends on the BTH two or three layers down (its opcode, and in Part II its TVer), so
    each header asks its BTH for the whole chain instead."""
    bth = _bth_of(pkt)
    if bth is None:
        return conf.raw_layer
    chain = header_chain(bth)
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


# =====================================================================================
# Part II: extension mode (BTH TVer = 1), spec sections 18-26 (revision 2)
# =====================================================================================

EXT_VERSION = 1       # BTH TVer of every Ext packet (MR-EX-04), and Ver of MXH, CRETH, SECH
OP_PROBE = 0x18       # section 25.2
OP_CREDIT = 0x19      # section 26.8
OP_RESYNC = 0x1A      # section 22.3
SECURE_TAG_LEN = 16   # AES-256-GCM packet tag, section 19.4
# SX: BTH byte 8 bit 6, the most significant bit of Scapy's 7-bit BTH field resv7. In an
# Ext packet it is 1 if and only if a SECH follows the BTH (sections 3.2, 19.4); bits 5:0
# of resv7 stay reserved. TVer-0 packets have no SX (all of resv7 is reserved).
BTH_RESV7_SX = 0x40


class MXH(Packet):
    """MetaRoCE Extension Header (section 19.2, 20 bytes).

    Follows the BTH of every Ext request, READ response, PROBE and RESYNC. It carries
    what the receiver needs to place a packet out of order (msn, rqsn, offset), the path
    it took (plane, ev) for SACK echo and path management, and the sender's clock
    (tx_timestamp, valid when tsv = 1) for delay-based congestion control."""
    name = "MXH"
    fields_desc = [
        BitField("ver", EXT_VERSION, 4),
        BitField("retx", 0, 1),          # a retransmission
        BitField("tsv", 0, 1),           # tx_timestamp valid
        BitField("ar", 0, 1),            # ACK request: answer at once, with ARA = 1
        BitField("resv1", 0, 1),
        ByteField("plane", 0),
        XShortField("ev", 0),            # entropy value (section 20)
        ByteField("pending", 0),         # CREDIT: min(255, ceil(pending bytes / 4096))
        BitField("msn", 0, 24),          # request message sequence number (MR-EX-11)
        ByteField("resv8", 0),
        BitField("rqsn", 0, 24),         # receive-queue sequence number (MR-EX-12)
        IntField("offset", 0),           # byte offset of the first payload byte
        IntField("tx_timestamp", 0),     # ns modulo 2^32
    ]


def sack_bitmap(base, psns):
    """The SACKETH bitmap whose bit i says PSN (base + i) mod 2^24 was received.

    `psns` may hold PSNs outside the 64 the bitmap covers; they are ignored, as a
    receiver cannot report them in this ACK."""
    bitmap = 0
    for psn in psns:
        i = (psn - base) % (1 << 24)
        if i < 64:
            bitmap |= 1 << i
    return bitmap


class SACKETH(Packet):
    """Selective ACK Extended Transport Header (section 19.3, revision 2, 28 bytes).

    Follows the AETH (and AtomicAckETH) of every Ext ACK and NAK. The bitmap covers the
    64 PSNs from the base B = (sack_ref + sack_offset) mod 2^24, bit 0 being the least
    significant bit of the big-endian field; sack_offset (signed, a multiple of 8) lets
    the receiver place the bitmap around a packet with AR = 1 far from the cumulative
    PSN. The echo fields return the path and clock of the triggering packet."""
    name = "SACKETH"
    fields_desc = [
        BitField("ece", 0, 1),           # triggering packet was CE-marked
        BitField("trm", 0, 1),           # ... was trimmed (or carried a trim mark)
        BitField("oow", 0, 1),           # a packet beyond the window was discarded
        BitField("prb", 0, 1),           # answers a PROBE
        BitField("dup", 0, 1),           # triggering packet was a duplicate
        BitField("tse", 0, 1),           # ts_echo valid
        BitField("ara", 0, 1),           # answers AR = 1 or a RESYNC
        BitField("crv", 0, 1),           # credit valid
        XBitField("sack_ref", 0, 24),    # (cumulative PSN + 1) rounded down to 8
        XLongField("bitmap", 0),
        XShortField("ev_echo", 0),
        ByteField("plane_echo", 0),
        ByteField("mpr", 0),             # granted window, units of 128 PSNs
        ShortField("ce_count", 0),
        ShortField("service_time", 0),   # units of 64 ns
        XIntField("ts_echo", 0),
        SignedShortField("sack_offset", 0),
        ShortField("credit", 0),         # credit limit, units of 256 bytes (crv = 1)
    ]

    def bitmap_base(self):
        """B = (sack_ref + sack_offset) mod 2^24: the PSN that bit 0 stands for."""
        return (self.sack_ref + self.sack_offset) % (1 << 24)

    def psns(self):
        """The PSNs the bitmap reports received, in bit order (PSN order from the base)."""
        base = self.bitmap_base()
        return [(base + i) % (1 << 24) for i in range(64) if (self.bitmap >> i) & 1]

    def covers(self, psn):
        """True when `psn` is one of the 64 PSNs the bitmap speaks about."""
        return (psn - self.bitmap_base()) % (1 << 24) < 64


class CRETH(Packet):
    """Credit Extended Transport Header (section 26.8, 4 bytes), alone after the BTH of a
    CREDIT packet (opcode 0x19): the receiver's current credit limit G."""
    name = "CRETH"
    fields_desc = [
        BitField("ver", EXT_VERSION, 4),
        BitField("resv4", 0, 4),
        ByteField("resv8", 0),
        ShortField("credit", 0),         # credit limit, units of 256 bytes modulo 2^16
    ]


RESYNC_CODES = {1: "OP_ERROR", 2: "ABORT", 3: "RESOURCE"}


class RSYNETH(Packet):
    """RESYNC Extended Transport Header (section 22.3, 4 bytes), after the MXH of a RESYNC
    (opcode 0x1A): the requester gives up `count` PSNs from the BTH PSN, so the receiver
    can move its cumulative PSN past a hole data will never fill."""
    name = "RSYNETH"
    fields_desc = [
        ByteEnumField("code", 1, RESYNC_CODES),
        BitField("end", 0, 1),           # the range ends its message
        BitField("resv7", 0, 7),
        ShortField("count", 1),
    ]


SECURE_SUITES = {1: "AES_256_GCM"}


class SECH(Packet):
    """Secure header (section 19.4, 24 bytes), directly after the BTH of every packet of
    a QP with SECURE enabled; that BTH has SX = 1 (resv7 & BTH_RESV7_SX), which building
    BTH()/SECH() sets. `htag` is the 8-byte header tag that lets a receiver
    authenticate a trimmed packet; it is bytes, like the packet tag of SecTag, because
    it is an AEAD output rather than a number."""
    name = "SECH"
    fields_desc = [
        BitField("ver", EXT_VERSION, 4),
        BitEnumField("suite", 1, 4, SECURE_SUITES),
        ByteField("resv8", 0),
        ShortField("epoch", 0),
        XIntField("spi", 0),
        XLongField("pn", 0),             # packet number, 1 to 2^63 - 1
        XStrFixedLenField("htag", b"\x00" * 8, 8),
    ]


class SecTag(Packet):
    """The end of a secure packet (section 19.4): the ciphertext of payload and pad, then
    the 16-byte AES-256-GCM tag (the ICRC follows, in BTH).

    On dissection everything before the last 16 bytes is ciphertext; Scapy cannot split
    it further without the key (docs/spec/tools/secure.py decrypts)."""
    name = "SecTag"
    fields_desc = [
        StrLenField("ciphertext", b"", length_from=lambda pkt: pkt._ciphertext_len),
        XStrFixedLenField("tag", b"\x00" * SECURE_TAG_LEN, SECURE_TAG_LEN),
    ]
    _ciphertext_len = 0

    def pre_dissect(self, s):
        self._ciphertext_len = max(0, len(s) - SECURE_TAG_LEN)
        return s


MXCAP_FEATURES = ["SACK", "OOO", "MULTIPATH", "TRIM", "PATHPROBE", "CC", "ADAPTIVE", "CREDIT"]
MXCAP_FEATURES2 = ["NONFATAL", "RESYNC", "SECURE", "RESV3", "RESV4", "RESV5", "RESV6", "RESV7"]
MXCAP_MAGIC = b"MRX1"


class MXCAP(Packet):
    """MetaRoCE capability block (section 18, 16 bytes): the first 16 bytes of the RDMA CM
    REQ and REP private data. Not bound to any layer: dissect it with
    MXCAP(private_data[:16]). The default block is a valid minimal one (SACK and OOO)."""
    name = "MXCAP"
    fields_desc = [
        StrFixedLenField("magic", MXCAP_MAGIC, 4),
        ByteField("version", 1),
        FlagsField("features", 0x03, 8, MXCAP_FEATURES),
        ByteEnumField("ev_mode", 0, {0: "UDP", 1: "FLOW"}),
        ByteField("mpr", 8),             # initial receive window, units of 128 PSNs
        ByteField("planes", 1),
        FlagsField("features2", 0, 8, MXCAP_FEATURES2),
        ShortField("ev_count", 1),
        IntField("reserved", 0),
    ]

    def enables_ext(self):
        """True when this block alone allows extension mode (MR-EX-01): the magic,
        version 1, and the SACK and OOO bits, the mandatory core of Ext."""
        return (self.magic == MXCAP_MAGIC and self.version == 1
                and int(self.features) & 0x03 == 0x03)


# ---- table 19.1: the headers after the BTH of an Ext packet, by opcode ----
# op: (name, headers, carries payload)
EXT_OPCODES = {
    0x00: ("SEND_FIRST", [MXH], True),
    0x01: ("SEND_MIDDLE", [MXH], True),
    0x02: ("SEND_LAST", [MXH], True),
    0x03: ("SEND_LAST_WITH_IMMEDIATE", [MXH, ImmDt], True),
    0x04: ("SEND_ONLY", [MXH], True),
    0x05: ("SEND_ONLY_WITH_IMMEDIATE", [MXH, ImmDt], True),
    # Every WRITE packet carries the RETH of its whole message, not only FIRST and ONLY.
    0x06: ("RDMA_WRITE_FIRST", [MXH, RETH], True),
    0x07: ("RDMA_WRITE_MIDDLE", [MXH, RETH], True),
    0x08: ("RDMA_WRITE_LAST", [MXH, RETH], True),
    0x09: ("RDMA_WRITE_LAST_WITH_IMMEDIATE", [MXH, RETH, ImmDt], True),
    0x0a: ("RDMA_WRITE_ONLY", [MXH, RETH], True),
    0x0b: ("RDMA_WRITE_ONLY_WITH_IMMEDIATE", [MXH, RETH, ImmDt], True),
    0x0c: ("RDMA_READ_REQUEST", [MXH, RETH], False),
    0x0d: ("RDMA_READ_RESPONSE_FIRST", [MXH, AETH], True),
    0x0e: ("RDMA_READ_RESPONSE_MIDDLE", [MXH], True),
    0x0f: ("RDMA_READ_RESPONSE_LAST", [MXH, AETH], True),
    0x10: ("RDMA_READ_RESPONSE_ONLY", [MXH, AETH], True),
    0x11: ("ACKNOWLEDGE", [AETH, SACKETH], False),
    0x12: ("ATOMIC_ACKNOWLEDGE", [AETH, AtomicAckETH, SACKETH], False),
    0x13: ("COMPARE_SWAP", [MXH, AtomicETH], False),
    0x14: ("FETCH_ADD", [MXH, AtomicETH], False),
    0x16: ("SEND_LAST_WITH_INVALIDATE", [MXH, IETH], True),
    0x17: ("SEND_ONLY_WITH_INVALIDATE", [MXH, IETH], True),
    OP_PROBE: ("PROBE", [MXH], False),
    OP_CREDIT: ("CREDIT", [CRETH], False),
    OP_RESYNC: ("RESYNC", [MXH, RSYNETH], False),
}


def ext_opcode_headers(op):
    return EXT_OPCODES[op][1] if op in EXT_OPCODES else []


def ext_opcode_name(op):
    return EXT_OPCODES[op][0] if op in EXT_OPCODES else "0x%02x" % op


# ---- AETH syndromes, with the extension NAKs of section 22 ----
AETH_SYNDROMES = {
    0x60: "NAK_PSN_SEQUENCE_ERROR",
    0x61: "NAK_INVALID_REQUEST",
    0x62: "NAK_REMOTE_ACCESS_ERROR",
    0x63: "NAK_REMOTE_OPERATIONAL_ERROR",
    0x64: "NAK_INVALID_RD_REQUEST",
}
# Defined for Ext QPs only: 0x65-0x67 always, 0x68-0x6B with NONFATAL (section 22).
EXT_NAK_SYNDROMES = {
    0x65: "NAK_TRIMMED",
    0x66: "NAK_TRIMMED_LAST_HOP",
    0x67: "NAK_PSN_OUT_OF_WINDOW",
    0x68: "NAK_OP_INVALID_REQUEST",
    0x69: "NAK_OP_REMOTE_ACCESS",
    0x6A: "NAK_OP_REMOTE_OPERATIONAL",
    0x6B: "NAK_RESOURCE",
}
AETH_SYNDROMES.update(EXT_NAK_SYNDROMES)


def syndrome_name(syndrome, ext=True):
    """Display name of an AETH syndrome: ACK, RNR_NAK, a NAK name or its hex value.
    With ext=False the Part II NAKs (reserved in base mode) show as hex."""
    if syndrome & 0xE0 == 0x00:
        return "ACK"
    if syndrome & 0xE0 == 0x20:
        return "RNR_NAK"
    if syndrome in AETH_SYNDROMES and (ext or syndrome not in EXT_NAK_SYNDROMES):
        return AETH_SYNDROMES[syndrome]
    return "0x%02x" % syndrome


# ---- dissection: which headers follow a BTH ----
conf.contribs.setdefault("metaroce", {})
# False: dissect every TVer as base (Part I), as a decoder without Part II does.
conf.contribs["metaroce"].setdefault("ext", True)


def bth_sx(bth):
    """SX of a BTH: 1 when it is an Ext BTH (TVer 1) with resv7 bit 6 set, else 0.
    A TVer-0 BTH has no SX, whatever its resv7 holds."""
    return int(bth.version == EXT_VERSION and bool(bth.resv7 & BTH_RESV7_SX))


def is_secure(bth):
    """Whether a packet carries SECH and SecTag, as its BTH says (section 19.4): TVer 1,
    an opcode of table 19.1 and SX = 1. A SECH cannot be told from an MXH or AETH by its
    bytes; SX is the wire's word for it, and MR-SE-12 makes every secure QP send it."""
    return bool(bth_sx(bth)) and bth.opcode in EXT_OPCODES


def _ext_dissection():
    return bool(conf.contribs.get("metaroce", {}).get("ext", True))


def header_chain(bth):
    """The header classes that follow `bth`, in wire order: table 19.1 for TVer 1
    (with SECH first and SecTag last when is_secure: SX = 1), the base table otherwise."""
    if bth.version != EXT_VERSION or not _ext_dissection():
        return opcode_headers(bth.opcode)
    chain = ext_opcode_headers(bth.opcode)
    if is_secure(bth):
        chain = [SECH] + chain + [SecTag]
    return chain


_base_bth_guess = BTH.guess_payload_class


def _bth_guess_payload_class(self, payload):
    """TVer 1 follows table 19.1; any other TVer keeps the base bindings untouched."""
    if self.version == EXT_VERSION and _ext_dissection():
        chain = header_chain(self)
        return chain[0] if chain else conf.raw_layer
    return _base_bth_guess(self, payload)


BTH.guess_payload_class = _bth_guess_payload_class

PART2_LAYERS = [MXH, SACKETH, CRETH, RSYNETH, SECH, SecTag]
for _cls in PART2_LAYERS:
    _cls.guess_payload_class = _next_after

# Building BTH()/MXH() (or SECH, CRETH) marks the BTH as Ext (TVer 1) unless told otherwise;
# BTH()/SECH() also sets SX (resv7 = BTH_RESV7_SX: resv7 is one 7-bit field, so a BTH that
# should carry reserved bits 5:0 as well sets resv7 itself, SX included).
for _cls in (MXH, SECH, CRETH):
    _cls._overload_fields = dict(_cls._overload_fields)
    _cls._overload_fields[BTH] = {"version": EXT_VERSION}
SECH._overload_fields[BTH] = {"version": EXT_VERSION, "resv7": BTH_RESV7_SX}
