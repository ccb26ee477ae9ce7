#!/usr/bin/python3
"""RoCEv2 Invariant CRC (ICRC), as specified in docs/spec/metaroce.md (MR-IC-01).

Library and command line. Standard library only.

    /usr/bin/python3 docs/spec/tools/icrc.py HEX          # HEX = IP packet or Ethernet frame
    /usr/bin/python3 docs/spec/tools/icrc.py --selftest   # check protocol.md vectors V1-V4

HEX may start at the IP header (first nibble 4 or 6) or at the Ethernet header
(optionally 802.1Q tagged). If the packet already ends in an ICRC the tool says whether
it is correct; the IP/UDP length fields tell where the transport packet ends.
"""
import binascii
import struct
import sys
import zlib

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
ETH_VLAN = 0x8100


class IcrcError(ValueError):
    """The bytes are not a RoCEv2 packet this module can handle."""


def strip_ethernet(frame):
    """Return the IP packet carried by an Ethernet II frame (with at most one VLAN tag)."""
    if len(frame) < 14:
        raise IcrcError("frame shorter than an Ethernet header")
    off = 12
    etype = struct.unpack_from("!H", frame, off)[0]
    if etype == ETH_VLAN:
        off += 4
        etype = struct.unpack_from("!H", frame, off)[0]
    if etype not in (ETH_IPV4, ETH_IPV6):
        raise IcrcError("EtherType 0x%04x is not IPv4 or IPv6" % etype)
    return frame[off + 2:]


def to_ip(data):
    """Accept an IP packet or an Ethernet frame; return the IP packet."""
    if data and data[0] >> 4 in (4, 6):
        return data
    return strip_ethernet(data)


def split(ip):
    """Return (ip_header_len, transport_end) for an IP packet carrying UDP.

    transport_end is the offset just past the UDP datagram according to the IP length
    field, i.e. just past the ICRC when the packet is complete.
    """
    ver = ip[0] >> 4
    if ver == 4:
        ihl = (ip[0] & 0x0F) * 4
        if ip[9] != 17:
            raise IcrcError("IPv4 protocol %d is not UDP" % ip[9])
        total = struct.unpack_from("!H", ip, 2)[0]
        return ihl, total
    if ver == 6:
        if ip[6] != 17:
            raise IcrcError("IPv6 next header %d is not UDP" % ip[6])
        plen = struct.unpack_from("!H", ip, 4)[0]
        return 40, 40 + plen
    raise IcrcError("IP version %d" % ver)


def masked_pseudo_packet(ip_no_icrc):
    """8 x 0xFF + IP + UDP + BTH + rest, with the variant fields set to all ones."""
    hlen, _ = split(ip_no_icrc)
    buf = bytearray(ip_no_icrc)
    if buf[0] >> 4 == 4:
        buf[1] = 0xFF                      # TOS (DSCP + ECN)
        buf[8] = 0xFF                      # TTL
        buf[10:12] = b"\xff\xff"           # header checksum
    else:
        buf[0] |= 0x0F                     # traffic class, high nibble
        buf[1] = 0xFF                      # traffic class low nibble + flow label high
        buf[2:4] = b"\xff\xff"             # flow label
        buf[7] = 0xFF                      # hop limit
    buf[hlen + 6:hlen + 8] = b"\xff\xff"   # UDP checksum
    buf[hlen + 8 + 4] = 0xFF               # BTH byte 4: FECN, BECN, Resv6a
    return b"\xff" * 8 + bytes(buf)


def compute(ip_no_icrc):
    """ICRC wire bytes (4 bytes, least-significant byte of the CRC first)."""
    crc = zlib.crc32(masked_pseudo_packet(ip_no_icrc)) & 0xFFFFFFFF
    return struct.pack("<I", crc)


def check(data):
    """Return (expected_icrc_bytes, found_icrc_bytes) for a complete packet or frame."""
    ip = to_ip(bytes(data))
    _, end = split(ip)
    if end > len(ip):
        raise IcrcError("IP length %d exceeds the %d bytes present" % (end, len(ip)))
    if end < split(ip)[0] + 8 + 12 + 4:
        raise IcrcError("too short for UDP + BTH + ICRC")
    return compute(ip[:end - 4]), ip[end - 4:end]


VECTORS = {
    # name: (IP packet without ICRC, ICRC wire bytes) -- notes/protocol.md section 1.7
    "V1": ("45010040047840004011b4d5c0a80007c0a80007c00012b7002caca22460ffff000000d300cf1710"
           "4630818be28935d90e9a95505401be885e500000", "78f353f3"),
    "V3": ("456a003000004000401126510a0000010a000002c12312b7001c00001100ffff00000012000001"
           "001f000001", "75b3aa37"),
    "V4": ("66a123450020114020010db800000000000000000000000120010db8000000000000000000000002"
           "d00d12b7002000000430ffff000000348000abcd68656c6c6f000000", "d1befc75"),
}
# V2 is a whole Ethernet frame including its ICRC.
V2_FRAME = ("e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b700280000"
            "8100ffff40000118000000000000000000000000000000000000000082fd002a")


def selftest():
    ok = True
    for name, (pkt, want) in VECTORS.items():
        got = compute(binascii.unhexlify(pkt)).hex()
        print("%s %s %s" % (name, got, "ok" if got == want else "MISMATCH, want " + want))
        ok &= got == want
    exp, found = check(binascii.unhexlify(V2_FRAME))
    print("V2 %s %s" % (exp.hex(), "ok" if exp == found else "MISMATCH, want " + found.hex()))
    ok &= exp == found
    return ok


def main(argv):
    if len(argv) == 2 and argv[1] == "--selftest":
        return 0 if selftest() else 1
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    data = binascii.unhexlify("".join(argv[1].split()))
    ip = to_ip(data)
    _, end = split(ip)
    if end <= len(ip):
        exp, found = check(data)
        print("icrc %s (packet carries %s: %s)" % (exp.hex(), found.hex(),
                                                    "ok" if exp == found else "BAD"))
        return 0 if exp == found else 1
    print("icrc %s" % compute(ip).hex())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
