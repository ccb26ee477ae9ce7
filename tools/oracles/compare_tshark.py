#!/usr/bin/python3
"""Compares `metaroce decode --json` with tshark's dissection, field by field.

  compare_tshark.py --decoder PATH/metaroce --pcap FILE [--pcap FILE ...]
                    [--expect-icrc-ok] [--show 20]

tshark 4.0 dissects UDP/4791 as `infiniband`. Every field tshark shows for Ethernet, 802.1Q,
IPv4, IPv6, UDP and the InfiniBand transport headers (bth, rdeth, deth, reth, atomiceth,
aeth, atomicacketh, immdt, ieth, invariant.crc, payload) is compared with ours; each
header's raw bytes as tshark shows them are compared with our decoded header re-serialized
(metaroce_scapy), and any infiniband field this script does not know counts as a mismatch,
so nothing tshark shows goes unchecked. Opcodes tshark does not know (FLUSH, ATOMIC_WRITE,
CNP) it shows as opaque "vendor" bytes (headers .. ICRC): those are compared as bytes.

tshark does not check the ICRC: with --expect-icrc-ok every RoCE frame must also have
icrc_ok true in our decode (real captures, corpora built with a correct ICRC).

With --lua tools/wireshark/metaroce.lua, tshark dissects TVer-1 (Part II) packets with the
project's Lua dissector (layer "metaroce", table 19.1) and the rest as above. Every field it
shows for BTH, SECH, MXH, the IBTA headers, SACKETH, CRETH, RSYNETH, the tag, payload, pad
and ICRC is compared with ours, each header's bytes with our header re-serialized (the
tools/scapy/metaroce.py layers), the header order with our layers, and its computed ICRC
with our verdict; fields it derives (SACK base, flags byte, AETH kind and NAK) are
recomputed from ours. The dissector finds a SECH by the BTH's SX bit, as our decoder does.

Without --lua, tshark's InfiniBand dissector knows no Part II: it reads a TVer-1 (Ext) frame
with the base headers of its opcode, where we read those of table 19.1 (MXH, SACKETH, ...).
Such frames get the Ethernet, 802.1Q, IP and UDP comparison only; the summary counts them
("N TVer-1 frames left to the Lua comparison"): compare_tshark_ext.py compares them with
tshark running our Lua dissector, tools/wireshark/metaroce.lua.

Exits 1 on any mismatch, on a frame count that differs, or on a frame tshark sees as
InfiniBand that we do not decode as RoCE.
"""

import argparse
import ipaddress
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import oracle_common as oc  # noqa: E402

# Where tshark 4.0 cannot serve as the oracle, by opcode. Each is reported in the summary
# (never silently): frames with these opcodes get the checks that still apply (Ethernet,
# 802.1Q, IP, UDP, the BTH fields, the ICRC), not the comparison of the headers after the
# BTH and the payload.
#
# RD (0x40-0x54): tshark 4.0 misplaces the headers after the BTH of RD packets: it shows
#   the "bth" item as 20 bytes and reads RDETH/DETH 8 bytes late; for RD_SEND_MIDDLE,
#   RD_RDMA_READ_REQUEST, RD_COMPARE_SWAP/FETCH_ADD it stops early and for
#   RD_ACKNOWLEDGE it skips the RDETH. (RoCE does not carry RD at all.) The Scapy oracle
#   (metaroce_scapy) still checks RD field by field.
KNOWN_DEVIATIONS = {op: "RD: tshark 4.0 misplaces the headers after the BTH"
                    for op in range(0x40, 0x60)}


def payload_heuristics():
    """The heuristic dissectors tshark tries on an InfiniBand payload (FCoIB, NVMe-RDMA,
    SMB Direct, ...): random payload bytes sometimes look like one of them, so those
    protocols are disabled and the payload stays plain data. (Not "ethertype", which is
    Ethernet's own dissector table.)"""
    out = subprocess.run(["tshark", "-G", "heuristic-decodes"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode()
    return sorted({l.split("\t")[1] for l in out.splitlines()
                   if l.startswith("infiniband.payload\t")} - {"ethertype"})


def num(s):
    """tshark values: decimal, 0x-hex, or booleans as 0/1."""
    if isinstance(s, (int, float)):
        return int(s)
    s = s.strip()
    if s in ("True", "true"):
        return 1
    if s in ("False", "false"):
        return 0
    return int(s, 16) if s.lower().startswith("0x") else int(s)


def hexbytes(s):
    return bytes.fromhex(s.replace(":", "")) if s else b""


def ip6(s):
    return str(ipaddress.IPv6Address(s))


# tshark layer -> (our layer, [(tshark field, our field, converter)])
L3 = {
    "eth": ("Ether", [("eth.dst", "dst", str.lower), ("eth.src", "src", str.lower),
                      ("eth.type", "type", num)]),
    "vlan": ("Dot1Q", [("vlan.priority", "prio", num), ("vlan.dei", "id", num),
                       ("vlan.id", "vlan", num), ("vlan.etype", "type", num)]),
    "ip": ("IP", [("ip.version", "version", num),
                  ("ip.hdr_len", "ihl", lambda v: num(v) // 4),
                  ("ip.dsfield", "tos", num), ("ip.len", "len", num), ("ip.id", "id", num),
                  ("ip.flags", "flags", num), ("ip.frag_offset", "frag", lambda v: num(v) // 8),
                  ("ip.ttl", "ttl", num), ("ip.proto", "proto", num),
                  ("ip.checksum", "chksum", num), ("ip.src", "src", str),
                  ("ip.dst", "dst", str)]),
    "ipv6": ("IPv6", [("ipv6.version", "version", num), ("ipv6.tclass", "tc", num),
                      ("ipv6.flow", "fl", num), ("ipv6.plen", "plen", num),
                      ("ipv6.nxt", "nh", num), ("ipv6.hlim", "hlim", num),
                      ("ipv6.src", "src", ip6), ("ipv6.dst", "dst", ip6)]),
    "udp": ("UDP", [("udp.srcport", "sport", num), ("udp.dstport", "dport", num),
                    ("udp.length", "len", num), ("udp.checksum", "chksum", num)]),
}

# infiniband header key -> (our layer, {tshark subfield: (our field, converter)})
IB = {
    "infiniband.bth": ("BTH", {
        "infiniband.bth.opcode": ("opcode", num), "infiniband.bth.se": ("solicited", num),
        "infiniband.bth.m": ("migreq", num), "infiniband.bth.padcnt": ("padcount", num),
        "infiniband.bth.tver": ("version", num), "infiniband.bth.p_key": ("pkey", num),
        # byte 4: FECN, BECN, resv6 (tshark 4.0 names the whole byte "reserved")
        "infiniband.reserved": ("(fecn<<7|becn<<6|resv6)", lambda v: int(v, 16)),
        "infiniband.bth.destqp": ("dqpn", num), "infiniband.bth.a": ("ackreq", num),
        "infiniband.bth.reserved7": ("resv7", num), "infiniband.bth.psn": ("psn", num)}),
    "infiniband.rdeth": ("RDETH", {"infiniband.reserved": ("resv8", lambda v: int(v, 16)),
                                   "infiniband.rdeth.eecnxt": ("eec", num)}),
    "infiniband.deth": ("DETH", {"infiniband.deth.q_key": ("qkey", num),
                                 "infiniband.reserved": ("resv8", lambda v: int(v, 16)),
                                 "infiniband.deth.srcqp": ("sqpn", num)}),
    "infiniband.reth": ("RETH", {"infiniband.reth.va": ("va", num),
                                 "infiniband.reth.r_key": ("rkey", num),
                                 "infiniband.reth.dmalen": ("dlen", num)}),
    "infiniband.atomiceth": ("AtomicETH", {"infiniband.reth.va": ("va", num),
                                           "infiniband.reth.r_key": ("rkey", num),
                                           "infiniband.atomiceth.swapdt": ("swap", num),
                                           "infiniband.atomiceth.cmpdt": ("comp", num)}),
    "infiniband.aeth": ("AETH", {"infiniband.aeth.syndrome": ("syndrome", num),
                                 "infiniband.aeth.msn": ("msn", num)}),
    "infiniband.atomicacketh": ("AtomicAckETH",
                                {"infiniband.atomicacketh.origremdt": ("orig", num)}),
    "infiniband.immdt": ("ImmDt", {"infiniband.immdt": ("imm", lambda v: int.from_bytes(
        hexbytes(v), "big"))}),
    "infiniband.ieth": ("IETH", {"infiniband.ieth": ("rkey", lambda v: int.from_bytes(
        hexbytes(v), "big"))}),
}


def signed16(v):
    return v - 0x10000 if v >= 0x8000 else v


# metaroce.lua (layer "metaroce", TVer 1) header key -> (our layer, {tshark field: (our
# field, converter)}). Fields under a "_tree" of a field are walked the same way.
EXT = {
    "infiniband.bth": ("BTH", {
        "infiniband.bth.opcode": ("opcode", num), "infiniband.bth.se": ("solicited", num),
        "infiniband.bth.m": ("migreq", num), "infiniband.bth.padcnt": ("padcount", num),
        "infiniband.bth.tver": ("version", num), "infiniband.bth.p_key": ("pkey", num),
        "metaroce.bth.fecn": ("fecn", num), "metaroce.bth.becn": ("becn", num),
        "metaroce.bth.resv6a": ("resv6", num), "infiniband.bth.destqp": ("dqpn", num),
        "infiniband.bth.a": ("ackreq", num), "infiniband.bth.reserved7": ("resv7", num),
        # SX, BTH resv7 bit 6 (section 19.4): our JSON keeps Scapy's 7-bit resv7.
        "metaroce.bth.sx": (lambda h: h["resv7"] >> 6 & 1, num),
        "infiniband.bth.psn": ("psn", num)}),
    "metaroce.sech": ("SECH", {
        "metaroce.sech.ver": ("ver", num), "metaroce.sech.suite": ("suite", num),
        "metaroce.sech.resv8": ("resv8", num), "metaroce.sech.epoch": ("epoch", num),
        "metaroce.sech.spi": ("spi", num), "metaroce.sech.pn": ("pn", num),
        "metaroce.sech.htag": ("htag", lambda v: hexbytes(v).hex())}),
    "metaroce.mxh": ("MXH", {
        "metaroce.mxh.ver": ("ver", num), "metaroce.mxh.retx": ("retx", num),
        "metaroce.mxh.tsv": ("tsv", num), "metaroce.mxh.ar": ("ar", num),
        "metaroce.mxh.resv0": ("resv1", num), "metaroce.mxh.plane": ("plane", num),
        "metaroce.mxh.ev": ("ev", num), "metaroce.mxh.pending": ("pending", num),
        "metaroce.mxh.msn": ("msn", num), "metaroce.mxh.resv8": ("resv8", num),
        "metaroce.mxh.rqsn": ("rqsn", num), "metaroce.mxh.offset": ("offset", num),
        "metaroce.mxh.txts": ("tx_timestamp", num)}),
    "infiniband.reth": IB["infiniband.reth"],
    "infiniband.atomiceth": IB["infiniband.atomiceth"],
    "infiniband.immdt": IB["infiniband.immdt"],
    "infiniband.ieth": IB["infiniband.ieth"],
    "infiniband.aeth": ("AETH", {
        "infiniband.aeth.syndrome": ("syndrome", num), "infiniband.aeth.msn": ("msn", num),
        "infiniband.aeth.syndrome.opcode": (lambda h: (h["syndrome"] >> 5) & 3, num),
        "metaroce.aeth.nak": (lambda h: h["syndrome"], num)}),
    "infiniband.atomicacketh": IB["infiniband.atomicacketh"],
    "metaroce.sack": ("SACKETH", {
        "metaroce.sack.flags": (lambda h: h["ece"] << 7 | h["trm"] << 6 | h["oow"] << 5
                                | h["prb"] << 4 | h["dup"] << 3 | h["tse"] << 2 | h["ara"] << 1
                                | h["crv"], num),
        "metaroce.sack.ece": ("ece", num), "metaroce.sack.trm": ("trm", num),
        "metaroce.sack.oow": ("oow", num), "metaroce.sack.prb": ("prb", num),
        "metaroce.sack.dup": ("dup", num), "metaroce.sack.tse": ("tse", num),
        "metaroce.sack.ara": ("ara", num), "metaroce.sack.crv": ("crv", num),
        "metaroce.sack.ref": ("sack_ref", num), "metaroce.sack.bitmap": ("bitmap", num),
        "metaroce.sack.ev_echo": ("ev_echo", num), "metaroce.sack.plane_echo": ("plane_echo", num),
        "metaroce.sack.mpr": ("mpr", num), "metaroce.sack.ce_count": ("ce_count", num),
        "metaroce.sack.service_time": ("service_time", num),
        "metaroce.sack.ts_echo": ("ts_echo", num),
        "metaroce.sack.offset": ("sack_offset", lambda v: num(v) & 0xFFFF),
        "metaroce.sack.credit_limit": ("credit", num),
        "metaroce.sack.base": (lambda h: (h["sack_ref"] + signed16(h["sack_offset"])) % (1 << 24),
                               num),
        # one per set / clear bit of the bitmap: tshark's JSON keeps only the last of
        # repeated keys, so these are not compared (bitmap and base are)
        "metaroce.sack.psn": (None, None), "metaroce.sack.hole": (None, None)}),
    "metaroce.creth": ("CRETH", {
        "metaroce.creth.ver": ("ver", num), "metaroce.creth.resv4": ("resv4", num),
        "metaroce.creth.resv8": ("resv8", num), "metaroce.creth.credit_limit": ("credit", num)}),
    "metaroce.rsyneth": ("RSYNETH", {
        "metaroce.rsyneth.code": ("code", num), "metaroce.rsyneth.end": ("end", num),
        "metaroce.rsyneth.resv7": ("resv7", num), "metaroce.rsyneth.count": ("count", num)}),
}


def ext_layer_bytes(name, fields):
    if name == "BTH":
        return bth_bytes(fields)
    import metaroce_scapy  # noqa: F401 (puts tools/scapy on sys.path)
    import metaroce as mx
    f = dict(fields)
    if name == "SACKETH":
        f["sack_offset"] = signed16(f["sack_offset"])
    if name == "SECH":
        f["htag"] = bytes.fromhex(f["htag"])
    return bytes(getattr(mx, name)(**f))


def compare_ext_fields(fno, ol, ours, sub, tree, mm, stats):
    for tk, tv in tree.items():
        if tk == "_ws.expert":
            continue  # expert info (reserved bits, names): not a field
        if tk.endswith("_tree"):
            if tk[:-len("_tree")] not in sub:
                mm.add(fno, "unknown tshark subtree %s" % tk, tv, None)
                continue
            compare_ext_fields(fno, ol, ours, sub, tv, mm, stats)
            continue
        if tk not in sub:
            mm.add(fno, "unknown tshark field %s" % tk, tv, None)
            continue
        of, conv = sub[tk]
        if of is None:
            continue
        exp = conv(tv)
        got = of(ours) if callable(of) else ours.get(of)
        if exp != got:
            mm.add(fno, "%s.%s (tshark %s)" % (ol, of if isinstance(of, str) else "derived", tk),
                   exp, got)
        stats["fields"] += 1


def compare_ext_frame(fno, layer, a, mm, stats):
    """A TVer-1 frame as metaroce.lua dissects it."""
    seen = []
    for key, val in layer.items():
        if key.endswith("_tree") or key == "_ws.expert":
            continue
        if key == "infiniband.invariant.crc":
            if num(val) != a.get("icrc"):
                mm.add(fno, "icrc (tshark invariant.crc)", num(val), a.get("icrc"))
            computed = layer.get(key + "_tree", {}).get("metaroce.icrc.computed")
            if computed is not None and (num(computed) == num(val)) != a.get("icrc_ok"):
                mm.add(fno, "icrc_ok (tshark metaroce.icrc.computed %s)" % computed, None,
                       a.get("icrc_ok"))
            stats["fields"] += 2
            continue
        if key in ("metaroce.payload", "metaroce.pad"):
            ours = a.get("payload" if key == "metaroce.payload" else "pad", "")
            if hexbytes(val).hex() != ours:
                mm.add(fno, "%s (tshark %s)" % (key.split(".")[1], key), hexbytes(val).hex(), ours)
            stats["fields"] += 1
            continue
        if key == "metaroce.sech.tag":
            seen.append("SecTag")
            ours = a.get("SecTag", {}).get("tag")
            if hexbytes(val).hex() != ours:
                mm.add(fno, "SecTag.tag (tshark %s)" % key, hexbytes(val).hex(), ours)
            stats["fields"] += 1
            continue
        if key not in EXT:
            mm.add(fno, "unknown tshark field %s" % key, val, None)
            continue
        ol, sub = EXT[key]
        seen.append(ol)
        if ol not in a:
            mm.add(fno, ol, "present (tshark %s)" % key, None)
            continue
        try:
            mine = ext_layer_bytes(ol, a[ol])
        except Exception as ex:
            mine = ("<cannot serialize: %s>" % ex).encode()
        if hexbytes(val) != mine:
            mm.add(fno, "%s bytes" % ol, hexbytes(val).hex(), mine.hex())
        stats["fields"] += 1
        compare_ext_fields(fno, ol, a[ol], sub, layer.get(key + "_tree", {}), mm, stats)
    ours = a["layers"][a["layers"].index("BTH"):]
    if seen != ours:
        mm.add(fno, "layers after IP/UDP (tshark metaroce)", seen, ours)
    for key, ours in (("metaroce.payload", a.get("payload")), ("metaroce.pad", a.get("pad"))):
        if key not in layer and ours:
            mm.add(fno, "%s (tshark shows none)" % key, "", ours)
    stats["ext_frames"] += 1


def bth_value(bth, field):
    if field.startswith("("):
        return bth["fecn"] << 7 | bth["becn"] << 6 | bth["resv6"]
    return bth[field]


def bth_bytes(b):
    return struct.pack("!BBHBBHBBH", b["opcode"],
                       b["solicited"] << 7 | b["migreq"] << 6 | b["padcount"] << 4 | b["version"],
                       b["pkey"], b["fecn"] << 7 | b["becn"] << 6 | b["resv6"],
                       b["dqpn"] >> 16, b["dqpn"] & 0xFFFF, b["ackreq"] << 7 | b["resv7"],
                       b["psn"] >> 16, b["psn"] & 0xFFFF)


def layer_bytes(name, fields):
    if name == "BTH":
        return bth_bytes(fields)
    import metaroce_scapy as ms
    return bytes(getattr(ms, name)(**fields))


def aeth_syndrome_tree_ok(syn, tree):
    """The decoded syndrome sub-fields tshark derives, recomputed from the syndrome."""
    want = {"infiniband.aeth.syndrome.reserved": syn >> 7,
            "infiniband.aeth.syndrome.opcode": (syn >> 5) & 3}
    low = syn & 0x1F
    kind = (syn >> 5) & 3
    if kind == 0:
        want["infiniband.aeth.syndrome.credit_count"] = low
    elif kind == 1:
        want["infiniband.aeth.syndrome.timer"] = low
    elif kind == 2:
        want["infiniband.aeth.syndrome.error_code"] = low
    else:
        want["infiniband.aeth.syndrome.reserved_value"] = low
    return all(num(tree[k]) == v for k, v in want.items() if k in tree)


def is_tver1(a):
    """Whether our decode read a BTH with TVer 1 (a frame it decoded, or refused after)."""
    return isinstance(a.get("BTH"), dict) and a["BTH"].get("version") == 1


def compare_frame(pcap, t, a, mm, stats):
    layers = t["_source"]["layers"]
    fno = "%s#%s" % (os.path.basename(pcap), a.get("frame"))
    ext = "metaroce" in layers  # our Lua dissector read it (--lua)
    tver1 = is_tver1(a) and not ext
    if tver1:
        # tshark's built-in dissector reads the base headers here: only L2 to UDP compared
        stats["tver1"] += 1
    if "infiniband" not in layers and not ext:
        if a.get("roce"):
            mm.add(fno, "roce", "not InfiniBand for tshark", "RoCE")
        return
    if not a.get("roce") and not ext:
        mm.add(fno, "roce", "InfiniBand for tshark", a.get("not_roce") or a.get("error"))
        return
    for tl, (ol, fields) in L3.items():
        if tl not in layers:
            continue
        if ol not in a:
            mm.add(fno, ol, "present (tshark %s)" % tl, None)
            continue
        for tf, of, conv in fields:
            if tf not in layers[tl]:
                continue
            exp = conv(layers[tl][tf])
            got = a[ol].get(of)
            if ol == "IPv6" and of in ("src", "dst") and got is not None:
                got = ip6(got)
            if exp != got:
                mm.add(fno, "%s.%s (tshark %s)" % (ol, of, tf), exp, got)
            stats["fields"] += 1
    if tver1:
        return
    if ext:
        compare_ext_frame(fno, layers["metaroce"], a, mm, stats)
        return
    ib = layers["infiniband"]
    op = a["BTH"]["opcode"]
    deviation = KNOWN_DEVIATIONS.get(op)
    if deviation:
        stats["deviations"][deviation] = stats["deviations"].get(deviation, 0) + 1
    for key, val in ib.items():
        if key.endswith("_tree"):
            continue
        if key == "infiniband.invariant.crc":
            if num(val) != a.get("icrc"):
                mm.add(fno, "icrc (tshark invariant.crc)", num(val), a.get("icrc"))
            stats["fields"] += 1
            continue
        if key == "infiniband.vendor":
            # an opcode tshark does not know: the bytes after the BTH, through the ICRC
            whole = hexbytes(ib.get("infiniband.vendor_tree", {}).get(key, val))
            ours = b"".join(layer_bytes(n, a[n]) for n in a["layers"][a["layers"].index("BTH") + 1:])
            ours += hexbytes(a["payload"]) + hexbytes(a["pad"]) + struct.pack("!I", a["icrc"])
            if whole != ours:
                mm.add(fno, "bytes after BTH (tshark vendor)", whole.hex(), ours.hex())
            stats["fields"] += 1
            continue
        if key not in IB:
            if key == "infiniband.payload":
                continue  # compared through the data layer below
            mm.add(fno, "unknown tshark field %s" % key, val, None)
            continue
        ol, sub = IB[key]
        if deviation and ol != "BTH":
            continue
        if ol not in a:
            mm.add(fno, ol, "present (tshark %s)" % key, None)
            continue
        ours = a[ol]
        raw = hexbytes(val)
        if deviation:
            raw = raw[:12]
        try:
            mine = layer_bytes(ol, ours)
        except Exception as ex:
            mine = ("<cannot serialize: %s>" % ex).encode()
        if raw != mine[:len(raw)] or len(raw) not in (len(mine), 4):
            mm.add(fno, "%s bytes" % ol, raw.hex(), mine.hex())
        tree = ib.get(key + "_tree", {})
        for tk, tv in tree.items():
            if tk.endswith("_tree"):
                if tk == "infiniband.aeth.syndrome_tree":
                    if not aeth_syndrome_tree_ok(ours.get("syndrome", -1), tv):
                        mm.add(fno, "AETH.syndrome sub-fields", tv, ours.get("syndrome"))
                    continue
                mm.add(fno, "unknown tshark subtree %s" % tk, tv, None)
                continue
            if tk not in sub:
                mm.add(fno, "unknown tshark field %s" % tk, tv, None)
                continue
            of, conv = sub[tk]
            exp = conv(tv)
            got = bth_value(ours, of) if ol == "BTH" else ours.get(of)
            if exp != got:
                mm.add(fno, "%s.%s (tshark %s)" % (ol, of, tk), exp, got)
            stats["fields"] += 1
    if not deviation and "infiniband.invariant.crc" in ib:
        # tshark's payload (the data layer, or infiniband.payload) is our payload + pad
        data = layers.get("data", {}).get("data.data") or ib.get("infiniband.payload", "")
        exp = hexbytes(data)
        got = hexbytes(a.get("payload", "")) + hexbytes(a.get("pad", ""))
        if exp != got:
            mm.add(fno, "payload+pad (tshark data)", exp.hex(), got.hex())
        stats["fields"] += 1


def run_tshark(pcap, lua=None):
    cmd = ["tshark", "-n", "-r", pcap, "-T", "json"]
    if lua:
        cmd += ["-X", "lua_script:" + lua]
    for h in payload_heuristics():
        cmd += ["--disable-protocol", h]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode(errors="replace"))
        raise SystemExit("tshark exited %d on %s" % (proc.returncode, pcap))
    return json.loads(proc.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("--pcap", action="append", required=True)
    ap.add_argument("--expect-icrc-ok", action="store_true")
    ap.add_argument("--min-frames", type=int, default=1)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--lua", help="tools/wireshark/metaroce.lua: dissect TVer 1 as Part II")
    a = ap.parse_args()
    mm = oc.Mismatches(a.show)
    stats = {"fields": 0, "deviations": {}, "ext_frames": 0, "tver1": 0}
    frames = roce = 0
    bad_count = False
    for pcap in a.pcap:
        ts = run_tshark(pcap, a.lua)
        ours = oc.run_decoder(a.decoder, pcap)
        if len(ts) != len(ours):
            print("%s: tshark gives %d frames, the decoder %d" % (pcap, len(ts), len(ours)))
            bad_count = True
        for t, o in zip(ts, ours):
            frames += 1
            roce += bool(o.get("roce"))
            compare_frame(pcap, t, o, mm, stats)
            if a.expect_icrc_ok and o.get("roce") and o.get("icrc_ok") is not True:
                mm.add("%s#%s" % (os.path.basename(pcap), o.get("frame")), "icrc_ok", True,
                       o.get("icrc_ok"))
    for what, n in sorted(stats["deviations"].items()):
        print("compare_tshark: known deviation, %d frames (headers after BTH not compared): %s"
              % (n, what))
    if stats["tver1"]:
        print("compare_tshark: %d TVer-1 frames left to the Lua comparison (compare_tshark_ext.py):"
              " tshark's InfiniBand dissector knows no Part II; their Ethernet, 802.1Q, IP and "
              "UDP fields are compared here" % stats["tver1"])
    ok = mm.count == 0 and not bad_count and frames >= a.min_frames
    ext = " (%d Part II by metaroce.lua)" % stats["ext_frames"] if a.lua else ""
    print("compare_tshark: %d frames (%d RoCE%s) in %d files, %d fields compared, "
          "%d mismatches in %d frames: %s"
          % (frames, roce, ext, len(a.pcap), stats["fields"], mm.count, len(mm.frames),
             "PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
