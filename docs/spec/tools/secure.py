#!/usr/bin/python3
"""MetaRoCE secure mode (metaroce.md section 19.4): SECH, header tag and packet tag.

    /usr/bin/python3 docs/spec/tools/secure.py HEX    # verify a secure IP packet with the
                                                      # example SA of section 27

Library: seal_transport(bth, headers, plaintext, sa, pn) builds the protected BTH ... TAG
blob from a plain one, with BTH SX (byte 8 bit 6) set; verify(transport, header_len, sa)
checks a secure BTH ... TAG blob (SX, SECH, both tags) and returns (plaintext, None) or
(None, message); verify_ip(ip, sa) checks a whole secure IP packet and returns None or a
message. The example SA (EXAMPLE_SA) is the one section 27 names; check_spec.py
verifies every EX-S* example with it. Standard library only (tools/aes_gcm.py).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aes_gcm  # noqa: E402

SECH_LEN = 24
TAG_LEN = 16
HTAG_LEN = 8
SUITE_AES256_GCM = 1
BTH_SX = 0x40         # BTH byte 8 bit 6 (top bit of Resv7): a SECH follows (section 19.4)

# The example security association of metaroce.md section 27 (one per direction).
EXAMPLE_SA = {
    # requester -> responder (tester -> DUT in the examples)
    "tx": {"key": bytes(range(0x00, 0x20)), "salt": bytes.fromhex("a0a1a2a3"),
           "spi": 0x00000101, "epoch": 1},
    # responder -> requester
    "rx": {"key": bytes(range(0x20, 0x40)), "salt": bytes.fromhex("b0b1b2b3"),
           "spi": 0x00000202, "epoch": 1},
}


def sech(sa, pn, htag=bytes(HTAG_LEN)):
    if not 0 < pn < (1 << 63):
        raise ValueError("PN must be in 1 .. 2^63 - 1")
    return struct.pack("!BBHIQ", 0x10 | SUITE_AES256_GCM, 0, sa["epoch"], sa["spi"], pn) + htag


def _mask_bth(block):
    return block[:4] + b"\xff" + block[5:]


def nonce(sa, pn, header=False):
    return sa["salt"] + struct.pack("!Q", pn | ((1 << 63) if header else 0))


def header_tag(sa, pn, header_block_zero_htag):
    _, tag = aes_gcm.seal(sa["key"], nonce(sa, pn, header=True),
                          _mask_bth(header_block_zero_htag), b"")
    return tag[:HTAG_LEN]


def with_sx(bth):
    """The BTH with SX = 1, as every packet of a secure QP carries it (MR-SE-12)."""
    return bth[:8] + bytes([bth[8] | BTH_SX]) + bth[9:]


def seal_transport(bth, headers, plaintext, sa, pn):
    """bth (12 bytes) + headers after the SECH + plaintext (payload and pad) ->
    BTH (SX set) | SECH | headers | ciphertext | TAG. SX is part of the authenticated
    header block, so it is set before either tag is computed."""
    bth = with_sx(bth)
    block0 = bth + sech(sa, pn) + headers
    htag = header_tag(sa, pn, block0)
    block = bth + sech(sa, pn, htag) + headers
    ct, tag = aes_gcm.seal(sa["key"], nonce(sa, pn), _mask_bth(block), plaintext)
    return block + ct + tag


def verify(transport, header_len, sa):
    """transport = BTH ... TAG (no ICRC); header_len = bytes of the header block.
    Returns (plaintext, None) or (None, message)."""
    if len(transport) < 12 + SECH_LEN + TAG_LEN or header_len > len(transport) - TAG_LEN:
        return None, "too short for BTH, SECH and tag"
    if transport[1] & 0x0F != 1 or not transport[8] & BTH_SX:
        return None, "BTH SX is 0 (or TVer is not 1): no SECH follows the BTH"
    s = transport[12:12 + SECH_LEN]
    ver_suite, _, epoch, spi, pn = struct.unpack("!BBHIQ", s[:16])
    if ver_suite != 0x10 | SUITE_AES256_GCM:
        return None, "SECH version/suite byte 0x%02x" % ver_suite
    if epoch != sa["epoch"] or spi != sa["spi"]:
        return None, "SECH epoch %d / SPI 0x%08x not the example SA's" % (epoch, spi)
    block = transport[:header_len]
    zero = block[:12 + 16] + bytes(HTAG_LEN) + block[12 + SECH_LEN:]
    if header_tag(sa, pn, zero) != s[16:24]:
        return None, "header tag does not verify"
    ct, tag = transport[header_len:-TAG_LEN], transport[-TAG_LEN:]
    pt = aes_gcm.open_(sa["key"], nonce(sa, pn), _mask_bth(block), ct, tag)
    if pt is None:
        return None, "packet tag does not verify"
    return pt, None


# Header bytes after the SECH for each opcode (table 19.1), for verify() callers that
# only have the packet.
MXH_LEN, RETH_LEN, AETH_LEN, SACKETH_LEN, RSYNETH_LEN = 20, 16, 4, 28, 4
HEADERS_AFTER_SECH = {
    0x00: MXH_LEN, 0x01: MXH_LEN, 0x02: MXH_LEN, 0x03: MXH_LEN + 4, 0x04: MXH_LEN,
    0x05: MXH_LEN + 4, 0x06: MXH_LEN + RETH_LEN, 0x07: MXH_LEN + RETH_LEN,
    0x08: MXH_LEN + RETH_LEN, 0x09: MXH_LEN + RETH_LEN + 4, 0x0A: MXH_LEN + RETH_LEN,
    0x0B: MXH_LEN + RETH_LEN + 4, 0x0C: MXH_LEN + RETH_LEN, 0x0D: MXH_LEN + AETH_LEN,
    0x0E: MXH_LEN, 0x0F: MXH_LEN + AETH_LEN, 0x10: MXH_LEN + AETH_LEN,
    0x11: AETH_LEN + SACKETH_LEN, 0x12: AETH_LEN + 8 + SACKETH_LEN, 0x13: MXH_LEN + 28,
    0x14: MXH_LEN + 28, 0x16: MXH_LEN + 4, 0x17: MXH_LEN + 4, 0x18: MXH_LEN,
    0x1A: MXH_LEN + RSYNETH_LEN,
}


def verify_ip(ip, sa):
    """ip = a whole IP packet ending in its ICRC. Returns None or an error message."""
    hlen = 20 if ip[0] >> 4 == 4 else 40
    transport = ip[hlen + 8:-4]
    op = transport[0]
    if op not in HEADERS_AFTER_SECH:
        return "opcode 0x%02x has no secure header set" % op
    _, err = verify(transport, 12 + SECH_LEN + HEADERS_AFTER_SECH[op], sa)
    return err


def example_sa_for(ip):
    """The example SA a packet of section 27 uses: by its IPv4/IPv6 source address
    (the requester is ...::1 / 198.18.0.1)."""
    src_last = ip[15] if ip[0] >> 4 == 4 else ip[23]
    return EXAMPLE_SA["tx"] if src_last == 1 else EXAMPLE_SA["rx"]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    data = bytes.fromhex(sys.argv[1])
    err = verify_ip(data, example_sa_for(data))
    print("secure: %s" % (err or "OK"))
    sys.exit(1 if err else 0)
