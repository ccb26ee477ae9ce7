#!/usr/bin/python3
"""Build the worked example packets of docs/spec/metaroce.md.

    /usr/bin/python3 docs/spec/tools/examples.py            # print every example
    /usr/bin/python3 docs/spec/tools/examples.py --write    # rewrite the blocks in metaroce.md

Each example is a fenced block ```packet id=EX-.. layer=eth|ip``` holding an offset + hex
dump, placed right after a line `<!-- example EX-.. -->`. check_spec.py recomputes the ICRC
of every such block, so the dumps cannot rot even if this generator is never rerun.
"""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import icrc  # noqa: E402
import secure  # noqa: E402

MAC_T = bytes.fromhex("020000000001")   # tester / requester
MAC_D = bytes.fromhex("020000000002")   # DUT / responder
IP4_T = bytes([198, 18, 0, 1])
IP4_D = bytes([198, 18, 0, 2])
IP6_T = bytes.fromhex("20010db8000000000000000000000001")
IP6_D = bytes.fromhex("20010db8000000000000000000000002")


def csum16(data):
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def bth(opcode, dqpn, psn, ackreq=0, se=0, pad=0, tver=0, pkey=0xFFFF, becn=0, sx=0):
    """BTH, 12 bytes. sx: byte 8 bit 6, the SX bit of an Ext packet (a SECH follows)."""
    return struct.pack("!BBHBBHI", opcode, (se << 7) | (pad << 4) | tver, pkey,
                       becn << 6, dqpn >> 16, dqpn & 0xFFFF,
                       (ackreq << 31) | (sx << 30) | psn)


def aeth(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | msn)


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def atomiceth(va, rkey, swap_add, compare):
    return struct.pack("!QIQQ", va, rkey, swap_add, compare)


def mxh(ev, msn, offset, ts, plane=0, rqsn=0, retx=0, tsv=1, ar=0, pending=0):
    """MXH, 20 bytes: byte 4 Pending (CREDIT mode), bytes 5-7 MSN."""
    return struct.pack("!BBHIIII", 0x10 | (retx << 3) | (tsv << 2) | (ar << 1), plane, ev,
                       (pending << 24) | msn, rqsn, offset, ts)


def sacketh(ref, bitmap, ev, plane, mpr, ce, svc, ts, ece=0, trm=0, oow=0, prb=0, dup=0, tse=1,
            ara=0, offset=0, crv=0, credit=0):
    """SACKETH, 28 bytes (revision 2): bytes 24-25 signed SACK offset, 26-27 credit limit
    (CRV, byte 0 bit 0, says whether bytes 26-27 carry one)."""
    flags = ((ece << 7) | (trm << 6) | (oow << 5) | (prb << 4) | (dup << 3) | (tse << 2) |
             (ara << 1) | crv)
    return struct.pack("!IQHBBHHIhH", (flags << 24) | ref, bitmap, ev, plane, mpr, ce, svc, ts,
                       offset, credit)


def rsyneth(code, count, end=0):
    return struct.pack("!BBH", code, end << 7, count)


def creth(limit):
    """CRETH of a CREDIT packet: version 1, reserved, credit limit."""
    return struct.pack("!BBH", 0x10, 0, limit)


TOS_CTRL = 46 << 2   # V_TR_CTRL_DSCP (EF), Not-ECT: ACKs, NAKs, PROBEs, RESYNCs, CREDITs


def packet(src, dst, sport, transport, tos=0x6A, ident=1, flow=0, v6=False):
    """IP packet (no ICRC) + ICRC for a transport blob (BTH ... pad)."""
    udp_len = 8 + len(transport) + 4
    udp = struct.pack("!HHHH", sport, 4791, udp_len, 0)
    if v6:
        ip = struct.pack("!IHBB", (6 << 28) | (tos << 20) | flow, udp_len, 17, 64) + src + dst
    else:
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + udp_len, ident, 0x4000, 64, 17, 0,
                          src, dst)
        ip = hdr[:10] + struct.pack("!H", csum16(hdr)) + hdr[12:]
    body = ip + udp + transport
    return body + icrc.compute(body)


def frame(dst_mac, src_mac, ip):
    etype = 0x86DD if ip[0] >> 4 == 6 else 0x0800
    return dst_mac + src_mac + struct.pack("!H", etype) + ip


def fl_sport(fl):
    """Linux rdma_flow_label_to_udp_sport(): 0xC000 | (fl[13:0] ^ fl[19:14])."""
    return 0xC000 | ((fl & 0x3FFF) ^ (fl >> 14))


def examples():
    ex = {}
    # ---- Part I ------------------------------------------------------------------------
    ex["EX-B1"] = ("eth", frame(MAC_D, MAC_T, packet(
        IP4_T, IP4_D, 0xC123, bth(0x04, 0x000012, 0x000100, ackreq=1) + b"MetaRoCE")))
    ex["EX-B2"] = ("eth", frame(MAC_T, MAC_D, packet(
        IP4_D, IP4_T, 0xC123, bth(0x11, 0x000011, 0x000100) + aeth(0x1F, 1))))
    ex["EX-B3"] = ("ip", packet(
        IP4_D, IP4_T, 0xC123, bth(0x11, 0x000011, 0x000101) + aeth(0x60, 1), ident=2))
    ex["EX-B4"] = ("ip", packet(
        IP6_T, IP6_D, fl_sport(0x12345),
        bth(0x0A, 0x000012, 0x000102, ackreq=1, pad=3) +
        reth(0x0000000010000000, 0x00001234, 5) + b"hello\x00\x00\x00", flow=0x12345, v6=True))
    ex["EX-B5"] = ("ip", packet(
        IP4_T, IP4_D, 0xC123, bth(0x0C, 0x000012, 0x000103, ackreq=1) +
        reth(0x0000000010000000, 0x00001234, 16), ident=3))
    ex["EX-B6"] = ("ip", packet(
        IP4_D, IP4_T, 0xC123, bth(0x10, 0x000011, 0x000103) + aeth(0x1F, 3) +
        bytes(range(0x30, 0x40)), ident=4))
    ex["EX-B7"] = ("ip", packet(
        IP4_T, IP4_D, 0xC123, bth(0x14, 0x000012, 0x000104, ackreq=1) +
        atomiceth(0x0000000010000008, 0x00001234, 5, 0), ident=5))
    ex["EX-B8"] = ("ip", packet(
        IP4_D, IP4_T, 0xC123, bth(0x12, 0x000011, 0x000104) + aeth(0x1F, 4) +
        struct.pack("!Q", 0x2A), ident=6))
    ex["EX-B9"] = ("ip", packet(
        IP4_D, IP4_T, 0xC123, bth(0x11, 0x000011, 0x000105) + aeth(0x2E, 4), ident=7))
    ex["EX-B10"] = ("eth", frame(MAC_T, MAC_D, packet(
        IP4_D, IP4_T, 0xC000, bth(0x81, 0x000011, 0, becn=1) + bytes(16), tos=0xC2, ident=8)))
    # ---- Part II -----------------------------------------------------------------------
    ex["EX-E1"] = ("eth", frame(MAC_D, MAC_T, packet(
        IP4_T, IP4_D, 0xC005,
        bth(0x08, 0x000012, 0x000202, ackreq=1, tver=1) +
        mxh(0xC005, 7, 0x800, 0x0001E240, plane=1) +
        reth(0x0000000020000000, 0x00005678, 0x818) + bytes(range(0x18)), ident=9)))
    ex["EX-E2"] = ("ip", packet(
        IP4_D, IP4_T, 0xC006,
        bth(0x11, 0x000011, 0x000203, tver=1) + aeth(0x1F, 7) +
        sacketh(0x000200, 0b1101111, 0xC005, 1, 8, 0, 3, 0x0001E240), tos=TOS_CTRL, ident=10))
    ex["EX-E3"] = ("ip", packet(
        IP4_D, IP4_T, 0xC007,
        bth(0x11, 0x000011, 0x000204, tver=1) + aeth(0x65, 7) +
        sacketh(0x000200, 0b1101111, 0xC009, 0, 8, 0, 2, 0x0001E2A0, trm=1), tos=TOS_CTRL,
        ident=11))
    fl_probe = (2 << 16) | 0x4C11
    ex["EX-E4"] = ("ip", packet(
        IP6_T, IP6_D, fl_sport(fl_probe),
        bth(0x18, 0x000012, 0x000208, ackreq=1, tver=1) +
        mxh(0x4C11, 0, 0, 0x00030D40, plane=2), flow=fl_probe, v6=True))
    fl_ack = (0 << 16) | 0x4C02
    ex["EX-E5"] = ("ip", packet(
        IP6_D, IP6_T, fl_sport(fl_ack),
        bth(0x11, 0x000011, 0x000206, tver=1) + aeth(0x1F, 7) +
        sacketh(0x000200, 0x7F, 0x4C11, 2, 8, 0, 1, 0x00030D40, prb=1), tos=TOS_CTRL,
        flow=fl_ack, v6=True))
    ex["EX-E6"] = ("ip", packet(
        IP4_T, IP4_D, 0xC00A,
        bth(0x04, 0x000012, 0x000208, ackreq=1, tver=1) +
        mxh(0xC00A, 9, 0, 0x0001E300, rqsn=3) + b"MetaRoCE", ident=12))
    # ---- Part II revision 2: reliability (SACK reach, non-fatal errors, secure mode) ---
    # EX-R1: tail-loss probe: the WRITE LAST of message 10 (PSNs 0x000209-0x000288, DMA
    # length 127 x 1024 + 16) retransmitted with RETX = 1 and AR = 1.
    ex["EX-R1"] = ("ip", packet(
        IP4_T, IP4_D, 0xC00B,
        bth(0x08, 0x000012, 0x000288, ackreq=1, tver=1) +
        mxh(0xC00B, 10, 127 * 1024, 0x00030000, plane=1, retx=1, ar=1) +
        reth(0x0000000030000000, 0x00005678, 127 * 1024 + 16) + bytes(range(0x40, 0x50)),
        ident=13))
    # EX-R2: its ACK: C = 0x00022F (0x000230 missing), R = 0x000230; ARA = 1, bitmap around
    # the probe: B = (0x288 - 56) & ~7 = 0x250, O = 0x20; 0x250-0x282 and 0x288 received.
    bm = ((1 << 51) - 1) | (1 << 56)
    ex["EX-R2"] = ("ip", packet(
        IP4_D, IP4_T, 0xC00C,
        bth(0x11, 0x000011, 0x00022F, tver=1) + aeth(0x1F, 9) +
        sacketh(0x000230, bm, 0xC00B, 1, 8, 0, 2, 0x00030000, ara=1, offset=0x20),
        tos=TOS_CTRL, ident=14))
    # EX-R3: message 11, an RDMA WRITE_ONLY at PSN 0x000289 with a bad R_Key, on a QP with
    # NONFATAL: NAK 0x69 OP_REMOTE_ACCESS; C = 0x000288, MSN 10; the QP stays in RTS.
    ex["EX-R3"] = ("ip", packet(
        IP4_D, IP4_T, 0xC00D,
        bth(0x11, 0x000011, 0x000289, tver=1) + aeth(0x69, 10) +
        sacketh(0x000288, 0x1, 0xC00E, 0, 8, 0, 1, 0x00030400),
        tos=TOS_CTRL, ident=15))
    # EX-R4: the requester's RESYNC for it: code 1 OP_ERROR, END, count 1, MXH MSN 11.
    ex["EX-R4"] = ("ip", packet(
        IP4_T, IP4_D, 0xC00F,
        bth(0x1A, 0x000012, 0x000289, ackreq=1, tver=1) +
        mxh(0xC00F, 11, 0, 0x00030800, plane=1) + rsyneth(1, 1, end=1),
        tos=TOS_CTRL, ident=16))
    # EX-S1: secure mode, QP 0x000021 -> 0x000022, example SA of section 27: SEND_ONLY
    # "MetaRoCE" at PSN 0x000001 (MSN 1, RQSN 1), SECH epoch 1, SPI 0x00000101, PN 1;
    # BTH SX = 1, as on every packet of a secure QP (seal_transport would set it anyway).
    sa_t, sa_d = secure.EXAMPLE_SA["tx"], secure.EXAMPLE_SA["rx"]
    ex["EX-S1"] = ("ip", packet(
        IP4_T, IP4_D, 0xC021,
        secure.seal_transport(bth(0x04, 0x000022, 0x000001, ackreq=1, tver=1, sx=1),
                              mxh(0xC021, 1, 0, 0x00040000, rqsn=1), b"MetaRoCE", sa_t, 1),
        ident=17))
    # EX-S2: its ACK, SECH epoch 1, SPI 0x00000202, PN 1 (authenticated, nothing encrypted).
    ex["EX-S2"] = ("ip", packet(
        IP4_D, IP4_T, 0xC022,
        secure.seal_transport(bth(0x11, 0x000021, 0x000001, tver=1, sx=1),
                              aeth(0x1F, 1) +
                              sacketh(0x000000, 0x3, 0xC021, 0, 8, 0, 2, 0x00040000),
                              b"", sa_d, 1),
        tos=TOS_CTRL, ident=18))
    # ---- Part II revision 2: congestion (ADAPTIVE and CREDIT) ----------------------------
    # A variant of the connection after EX-E6 with ADAPTIVE and CREDIT also enabled.
    # EX-C1: the immediate ACK of CE-marked message 9, with a credit limit of 0x240 units.
    ex["EX-C1"] = ("ip", packet(
        IP4_D, IP4_T, 0xC00C,
        bth(0x11, 0x000011, 0x000208, tver=1) + aeth(0x1F, 9) +
        sacketh(0x000208, 0x01, 0xC00A, 0, 8, 1, 2, 0x0001E300, ece=1, crv=1, credit=0x0240),
        tos=TOS_CTRL, ident=13))
    # EX-C2: a CREDIT packet raising the limit to 0x280.
    ex["EX-C2"] = ("ip", packet(
        IP4_D, IP4_T, 0xC00D, bth(0x19, 0x000011, 0x000208, tver=1) + creth(0x0280),
        tos=TOS_CTRL, ident=14))
    # EX-C3: message 10 of the variant, a SEND_ONLY with Pending 5 in MXH byte 4.
    ex["EX-C3"] = ("ip", packet(
        IP4_T, IP4_D, 0xC00E,
        bth(0x04, 0x000012, 0x000209, ackreq=1, tver=1) +
        mxh(0xC00E, 10, 0, 0x0001E400, rqsn=4, pending=5) + b"MetaRoCE", ident=15))
    return ex


def dump(data):
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        lines.append("%04x  %s" % (off, " ".join("%02x" % b for b in chunk)))
    return "\n".join(lines)


def block(name, layer, data):
    return "```packet id=%s layer=%s\n%s\n```" % (name, layer, dump(data))


BLOCK_RE = re.compile(r"(<!-- example (EX-[A-Z0-9-]+) -->\n)```packet[^\n]*\n(?:[0-9a-f]{4}  [^\n]*\n)*```")


def write(path):
    ex = examples()
    with open(path, encoding="utf-8") as f:
        text = f.read()

    def repl(m):
        layer, data = ex[m.group(2)]
        return m.group(1) + block(m.group(2), layer, data)
    new, n = BLOCK_RE.subn(repl, text)
    missing = set(ex) - set(re.findall(r"<!-- example (EX-[A-Z0-9-]+) -->", text))
    if missing:
        print("warning: no marker for: " + ", ".join(sorted(missing)), file=sys.stderr)
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    print("rewrote %d example blocks in %s" % (n, path))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--write":
        here = os.path.dirname(os.path.abspath(__file__))
        sys.exit(write(os.path.join(here, "..", "metaroce.md")))
    for k, (layer, data) in examples().items():
        print("<!-- example %s -->\n%s\n" % (k, block(k, layer, data)))
