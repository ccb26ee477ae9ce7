"""Seeded Part II (Ext) frames built with tools/scapy/metaroce.py, and Scapy's dissection.

  build_one(seed, i, op, secure, vlan, ipv6) -> (sec, usec, bytes, expect dict)

A frame is BTH TVer 1 with the headers of table 19.1 for its opcode (metaroce.EXT_OPCODES),
every field random (the Ver fields 1, SECH's suite 1), a payload of 0..300 bytes with a
consistent pad count when the opcode carries one; a secure frame (SX, Resv7 bit 6, set) has
a SECH after the BTH and a SecTag (ciphertext = payload and pad, then the 16-byte tag) before
the ICRC. The expect line is Scapy's dissection of the built bytes with Part II dissection on
(which finds the SECH by the BTH's SX bit, as our decoder does), in the shape of
`metaroce decode --json`: SecTag's ciphertext is the decode's payload and pad.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import metaroce_scapy  # noqa: E402,F401 (puts tools/scapy on sys.path)
import metaroce as mx  # noqa: E402
import oracle_common as oc  # noqa: E402
from scapy.config import conf  # noqa: E402
from scapy.layers.l2 import Ether, Dot1Q  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.packet import Raw  # noqa: E402

SX = 0x40  # BTH Resv7 bit 6 (spec section 19.4)
FIXED = {"MXH": {"ver": 1}, "CRETH": {"ver": 1}, "SECH": {"ver": 1, "suite": 1}}


def ext_opcodes():
    return sorted(mx.EXT_OPCODES)


def opcode_name(op):
    return "RC_" + mx.ext_opcode_name(op) if op in mx.EXT_OPCODES else "0x%02x" % op


def rand_bytes(r, n):
    return r.getrandbits(8 * n).to_bytes(n, "big") if n else b""


def random_layer(cls, r):
    """An instance of `cls` with every field drawn at random (dissected from random bytes)."""
    h = cls(rand_bytes(r, len(cls())))
    fields = {f.name: h.getfieldval(f.name) for f in cls.fields_desc}
    fields.update(FIXED.get(cls.__name__, {}))
    return cls(**fields)


def l2_l3(r, vlan, ipv6):
    pkt = Ether(dst="02:00:00:00:00:%02x" % r.randrange(1, 255), src="02:00:00:00:01:01")
    if vlan:
        pkt.add_payload(Dot1Q(prio=r.randrange(8), id=r.randrange(2), vlan=r.randrange(4096)))
    if ipv6:
        pkt.add_payload(IPv6(tc=r.randrange(256), fl=r.randrange(1 << 20), hlim=r.randrange(1, 256),
                             src="2001:2::%x" % r.randrange(1, 0x10000),
                             dst="2001:2::%x" % r.randrange(1, 0x10000)))
    else:
        pkt.add_payload(IP(tos=r.randrange(256), ttl=r.randrange(1, 256), id=r.randrange(65536),
                           flags=r.choice([0, 2]), src="198.18.0.%d" % r.randrange(1, 255),
                           dst="198.19.0.%d" % r.randrange(1, 255)))
    # sport above 4791 (scapy_corpus.py says why)
    pkt.add_payload(UDP(sport=r.randrange(4792, 65536), dport=4791,
                        chksum=r.choice([0, r.randrange(1, 65536)])))
    return pkt


def ext_bth(r, op, secure, pad):
    resv7 = r.choice([0, 0, r.randrange(64)]) | (SX if secure else 0)
    return mx.BTH(opcode=op, solicited=r.randrange(2), migreq=r.randrange(2), padcount=pad,
                  version=mx.EXT_VERSION, pkey=r.randrange(65536), fecn=r.randrange(2),
                  becn=r.randrange(2), resv6=r.choice([0, 0, r.randrange(64)]),
                  dqpn=r.randrange(1 << 24), ackreq=r.randrange(2), resv7=resv7,
                  psn=r.randrange(1 << 24))


def build_one(seed, i, op, secure, vlan=None, ipv6=None, frame=None, sec=1700001000):
    """Returns (sec, usec, bytes, expect dict) for Ext packet i of a corpus. vlan and ipv6
    are drawn from the seed when None."""
    r = random.Random("ext:%d:%d:%d:%d" % (seed, i, op, int(secure)))
    if vlan is None:
        vlan = r.random() < 0.3
    if ipv6 is None:
        ipv6 = r.random() < 0.4
    pkt = l2_l3(r, vlan, ipv6)
    name, headers, has_payload = mx.EXT_OPCODES[op]
    plen = (0 if r.random() < 0.05 else r.randrange(0, 301)) if has_payload else 0
    pad = (-plen) & 3
    pkt.add_payload(ext_bth(r, op, secure, pad))
    for cls in ([mx.SECH] if secure else []) + headers:
        pkt.add_payload(random_layer(cls, r))
    data = rand_bytes(r, plen) + b"\x00" * pad
    if secure:
        pkt.add_payload(mx.SecTag(ciphertext=data, tag=rand_bytes(r, mx.SECURE_TAG_LEN)))
    elif data:
        pkt.add_payload(Raw(load=data))
    b = bytes(pkt)
    usec = i * 1000 + r.randrange(1000)
    return sec, usec, b, expect_of(b, frame or i + 1, sec, usec, pad, secure)


def dissect(b, secure):
    """Scapy's dissection with Part II on (the oracles' shim turns it off for base frames).
    `secure` is not told to Scapy: it reads SX from the bytes, and expect_of checks that it
    found the SECH exactly when the frame was built secure."""
    c = conf.contribs["metaroce"]
    saved = dict(c)
    c["ext"] = True
    try:
        return Ether(b)
    finally:
        c.clear()
        c.update(saved)


def expect_of(b, frame, sec, usec, pad, secure):
    p = dissect(b, secure)
    e = {"frame": frame, "time": sec + usec / 1e6, "caplen": len(b), "roce": True}
    layers = []
    data = b""
    layer = p
    while layer is not None and layer.__class__.__name__ != "NoPayload":
        name = layer.__class__.__name__
        if name == "Raw":
            data = bytes(layer.load)
        elif name == "Padding":
            raise SystemExit("frame %d: Scapy found Ethernet padding" % frame)
        elif name == "SecTag":
            layers.append(name)
            data = bytes(layer.ciphertext)
            e[name] = {"tag": bytes(layer.tag).hex()}
        else:
            layers.append(name)
            e[name] = oc.layer_dict(layer)
        layer = layer.payload if layer.payload else None
    bth = p[mx.BTH]
    if secure != ("SECH" in layers):
        raise SystemExit("frame %d: Scapy did not dissect it as %s" % (frame, "secure" if secure
                                                                          else "plain"))
    e["opcode_name"] = opcode_name(bth.opcode)
    e["layers"] = layers
    assert bth.padcount == pad and len(data) >= pad
    e["payload"] = data[:len(data) - pad].hex()
    e["payload_len"] = len(data) - pad
    e["pad"] = data[len(data) - pad:].hex()
    e["icrc"] = int(bth.icrc)
    e["icrc_ok"] = True
    return e
