#!/usr/bin/python3
"""Compares `metaroce decode --json` with tshark running our Lua dissector, on TVer-1 frames.

  compare_tshark_ext.py --decoder PATH/metaroce --pcap FILE [--pcap FILE ...]
                        [--lua tools/wireshark/metaroce.lua] [--expect-icrc-ok]
                        [--min-ext-frames N] [--no-self-check] [--show 20]

tshark 4.0's InfiniBand dissector knows no Part II; tools/wireshark/metaroce.lua
(`tshark -X lua_script:...`) takes over UDP port 4791 and dissects every frame whose BTH has
TVer 1 by table 19.1, handing the others to the built-in dissector. For each frame our
decode read with a TVer-1 BTH, every item of the `metaroce` tree is compared with our JSON
for the same frame:

- the header items (infiniband.bth, metaroce.sech, metaroce.mxh, metaroce.sack,
  infiniband.aeth, ..., metaroce.creth, metaroce.rsyneth) must be our layers after UDP, in
  our order, each item's bytes our decoded header re-serialized (metaroce_scapy);
- every field under them (metaroce.mxh.ev, metaroce.sack.offset, infiniband.reth.va, ...)
  must equal our field, and every field we expect must be there; the derived ones too
  (metaroce.bth.sx from resv7, metaroce.sack.flags from the eight flags, metaroce.sack.base
  = sack_ref + signed sack_offset, one metaroce.sack.psn per set bitmap bit and one
  metaroce.sack.hole per clear bit below the highest set one, infiniband.aeth.syndrome.opcode,
  metaroce.aeth.nak on NAKs);
- metaroce.payload, metaroce.pad, metaroce.sech.tag (our SecTag.tag) and
  infiniband.invariant.crc with its metaroce.icrc.computed (equal to the ICRC exactly when
  our icrc_ok is true);
- the expert infos: each one the Lua dissector raises must be predicted from our fields
  (reserved bits, versions, SACK offset, SACK reference, credit without CRV, count 0,
  extension NAK, unknown opcode, ICRC) and each predicted one must be raised.

Fields the script does not know count as mismatches, so nothing tshark shows goes unchecked.
A TVer-1 frame our decode refuses (too short for a header of table 19.1: random corpora
have some) is compared up to the error: the headers read whole as above, then the header
the error names must be the item the Lua dissector marks metaroce.short (or "No room for
the ICRC" for an ICRC / SecTag error). The Lua dissector clamps a pad count larger than the
bytes before the ICRC instead of flagging it; frames we refuse for BTH.padcount are counted
in the summary, compared up to the error, and their payload is not compared.

Frames whose TVer is not 1 are left to compare_tshark.py (tshark's built-in dissector);
their count is printed. Unless --no-self-check, one field of each Part II header kind
present (MXH, SACKETH, CRETH, RSYNETH, SECH, SecTag, payload) is then changed in a copy of
our decode and the comparison must catch each change.

Exits 1 on any mismatch, on a frame count that differs, on Lua errors from tshark, or when
fewer than --min-ext-frames TVer-1 frames were compared.
"""

import argparse
import collections
import copy
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle_common as oc  # noqa: E402
from compare_tshark import num, hexbytes, bth_bytes, is_tver1  # noqa: E402

DEFAULT_LUA = os.path.join(os.path.dirname(HERE), "wireshark", "metaroce.lua")


def pairs_hook(pairs):
    """tshark -T json repeats keys (metaroce.sack.psn, _ws.expert): keep them all, in order."""
    return ("obj", pairs)


def items(node):
    return node[1] if isinstance(node, tuple) and node[0] == "obj" else []


def flag(v):
    return num(v)


def signed16(v):
    return v - 0x10000 if v & 0x8000 else v


# Header item -> (our layer, {tshark field: (our field, or a function of our fields,
# converter)}, {subtree: {tshark field: ...}})
HEADERS = {
    "infiniband.bth": ("BTH", {
        "infiniband.bth.opcode": ("opcode", num), "infiniband.bth.se": ("solicited", flag),
        "infiniband.bth.m": ("migreq", flag), "infiniband.bth.padcnt": ("padcount", num),
        "infiniband.bth.tver": ("version", num), "infiniband.bth.p_key": ("pkey", num),
        "metaroce.bth.fecn": ("fecn", flag), "metaroce.bth.becn": ("becn", flag),
        "metaroce.bth.resv6a": ("resv6", num), "infiniband.bth.destqp": ("dqpn", num),
        "infiniband.bth.a": ("ackreq", flag), "infiniband.bth.reserved7": ("resv7", num),
        "infiniband.bth.psn": ("psn", num)},
        {"infiniband.bth.reserved7_tree": {"metaroce.bth.sx": (lambda h: h["resv7"] >> 6 & 1, flag)}}),
    "metaroce.sech": ("SECH", {
        "metaroce.sech.ver": ("ver", num), "metaroce.sech.suite": ("suite", num),
        "metaroce.sech.resv8": ("resv8", num), "metaroce.sech.epoch": ("epoch", num),
        "metaroce.sech.spi": ("spi", num), "metaroce.sech.pn": ("pn", num),
        # AEAD output: bytes in tshark (aa:bb:..), a hex string in our JSON
        "metaroce.sech.htag": ("htag", lambda v: hexbytes(v).hex())}, {}),
    "metaroce.mxh": ("MXH", {
        "metaroce.mxh.ver": ("ver", num), "metaroce.mxh.retx": ("retx", flag),
        "metaroce.mxh.tsv": ("tsv", flag), "metaroce.mxh.ar": ("ar", flag),
        "metaroce.mxh.resv0": ("resv1", num), "metaroce.mxh.plane": ("plane", num),
        "metaroce.mxh.ev": ("ev", num), "metaroce.mxh.pending": ("pending", num),
        "metaroce.mxh.msn": ("msn", num), "metaroce.mxh.resv8": ("resv8", num),
        "metaroce.mxh.rqsn": ("rqsn", num), "metaroce.mxh.offset": ("offset", num),
        "metaroce.mxh.txts": ("tx_timestamp", num)}, {}),
    "metaroce.sack": ("SACKETH", {
        "metaroce.sack.flags": (lambda h: (h["ece"] << 7 | h["trm"] << 6 | h["oow"] << 5 | h["prb"] << 4
                                           | h["dup"] << 3 | h["tse"] << 2 | h["ara"] << 1 | h["crv"]), num),
        "metaroce.sack.ref": ("sack_ref", num), "metaroce.sack.bitmap": ("bitmap", num),
        "metaroce.sack.ev_echo": ("ev_echo", num), "metaroce.sack.plane_echo": ("plane_echo", num),
        "metaroce.sack.mpr": ("mpr", num), "metaroce.sack.ce_count": ("ce_count", num),
        "metaroce.sack.service_time": ("service_time", num),
        "metaroce.sack.ts_echo": ("ts_echo", num),
        # tshark shows the field signed (int16); our JSON has the unsigned 16-bit field
        "metaroce.sack.offset": (lambda h: signed16(h["sack_offset"]), num),
        "metaroce.sack.credit_limit": ("credit", num),
        "metaroce.sack.base": (lambda h: sack_base(h), num)},
        {"metaroce.sack.flags_tree": {"metaroce.sack." + f: (f, flag) for f in
                                      ("ece", "trm", "oow", "prb", "dup", "tse", "ara", "crv")}}),
    "infiniband.aeth": ("AETH", {
        "infiniband.aeth.syndrome": ("syndrome", num),
        "infiniband.aeth.syndrome.opcode": (lambda h: h["syndrome"] >> 5 & 3, num),
        "infiniband.aeth.msn": ("msn", num)}, {}),
    "infiniband.reth": ("RETH", {
        "infiniband.reth.va": ("va", num), "infiniband.reth.r_key": ("rkey", num),
        "infiniband.reth.dmalen": ("dlen", num)}, {}),
    "infiniband.atomiceth": ("AtomicETH", {
        "infiniband.reth.va": ("va", num), "infiniband.reth.r_key": ("rkey", num),
        "infiniband.atomiceth.swapdt": ("swap", num), "infiniband.atomiceth.cmpdt": ("comp", num)}, {}),
    "infiniband.atomicacketh": ("AtomicAckETH", {
        "infiniband.atomicacketh.origremdt": ("orig", num)}, {}),
    "infiniband.immdt": ("ImmDt", {}, {}),   # no sub-fields: the item's 4 bytes are imm
    "infiniband.ieth": ("IETH", {}, {}),     # ... and rkey
    "metaroce.creth": ("CRETH", {
        "metaroce.creth.ver": ("ver", num), "metaroce.creth.resv4": ("resv4", num),
        "metaroce.creth.resv8": ("resv8", num), "metaroce.creth.credit_limit": ("credit", num)}, {}),
    "metaroce.rsyneth": ("RSYNETH", {
        "metaroce.rsyneth.code": ("code", num), "metaroce.rsyneth.end": ("end", flag),
        "metaroce.rsyneth.resv7": ("resv7", num), "metaroce.rsyneth.count": ("count", num)}, {}),
}


# Fields compared by compare_frame itself: metaroce.aeth.nak is there on NAKs only.
CHECKED_APART = {"metaroce.aeth.nak"}


def sack_base(h):
    return (h["sack_ref"] + signed16(h["sack_offset"])) % (1 << 24)


def sack_psns(h):
    """(received PSNs, holes) as the Lua dissector derives them from the bitmap."""
    base, bm = sack_base(h), h["bitmap"]
    highest = bm.bit_length() - 1
    got = [(base + i) % (1 << 24) for i in range(highest + 1) if bm >> i & 1]
    holes = [(base + i) % (1 << 24) for i in range(highest + 1) if not bm >> i & 1]
    return got, holes


def our_bytes(layer, fields):
    """Our decoded header, re-serialized by the Scapy layer (Scapy's conventions mapped)."""
    if layer == "BTH":
        return bth_bytes(fields)
    import metaroce_scapy as ms
    f = dict(fields)
    if layer == "SACKETH":
        f["sack_offset"] = signed16(f["sack_offset"])
    if layer == "SECH":
        f["htag"] = bytes.fromhex(f["htag"])
    return bytes(getattr(ms, layer)(**f))


# ---- expert infos predicted from our decode ----
NO_PAYLOAD = {0x0C, 0x11, 0x12, 0x13, 0x14, 0x18, 0x19, 0x1A}
HEADER_SIZES = {"SECH": 24, "MXH": 20, "SACKETH": 28, "AETH": 4, "RETH": 16, "AtomicETH": 28,
                "AtomicAckETH": 8, "ImmDt": 4, "IETH": 4, "CRETH": 4, "RSYNETH": 4}


MALFORMED_GROUP = ("metaroce.bad_version", "metaroce.short", "metaroce.sx_short")


def predicted_experts(a, layers):
    """The expert infos metaroce.lua raises for the headers `layers` of our decode `a`."""
    want = collections.Counter()
    bth = a["BTH"]
    want["metaroce.reserved_set"] += (bth["resv6"] != 0) + (bth["resv7"] & 0x3F != 0)
    for name in layers:
        h = a[name]
        if name == "MXH":
            want["metaroce.reserved_set"] += (h["resv1"] != 0) + (h["resv8"] != 0)
            want["metaroce.bad_version"] += h["ver"] != 1
        elif name == "AETH":
            want["metaroce.reserved_set"] += h["syndrome"] & 0x80 != 0
            want["metaroce.ext_nak"] += 0x65 <= h["syndrome"] <= 0x6B
        elif name == "SACKETH":
            want["metaroce.sack.offset_not_multiple_of_8"] += signed16(h["sack_offset"]) % 8 != 0
            if bth["opcode"] == 0x11 and "AETH" in a and a["AETH"]["syndrome"] & 0x60 == 0:
                want["metaroce.sack.ref_inconsistent"] += (
                    h["sack_ref"] != ((bth["psn"] + 1) % (1 << 24)) & 0xFFFFF8)
            want["metaroce.sack.credit_without_crv"] += h["crv"] == 0 and h["credit"] != 0
        elif name == "CRETH":
            want["metaroce.reserved_set"] += (h["resv4"] != 0) + (h["resv8"] != 0)
            want["metaroce.bad_version"] += h["ver"] != 1
        elif name == "RSYNETH":
            want["metaroce.reserved_set"] += h["resv7"] != 0
            want["metaroce.rsyneth.count_zero"] += h["count"] == 0
        elif name == "SECH":
            want["metaroce.reserved_set"] += (h["resv8"] != 0) + (h["pn"] >> 63 & 1)
            want["metaroce.bad_version"] += h["ver"] != 1
    if a.get("opcode_known", True) is False:
        want["metaroce.unknown_opcode"] += 1
    return +want


def tver1_chain(a):
    """Our decode's headers after the BTH, in wire order (SecTag excluded)."""
    ls = a.get("layers", [])
    return [n for n in ls[ls.index("BTH") + 1:] if n != "SecTag"] if "BTH" in ls else []


def udp_payload_len(a):
    return a["UDP"]["len"] - 8 if isinstance(a.get("UDP"), dict) else None


class Frame:
    """The metaroce tree of one frame: its top-level items in order, and the expert infos and
    "Malformed Packet" items anywhere in it."""

    def __init__(self, tree):
        self.top = items(tree)    # (key, value) of the metaroce layer, in order
        self.experts = collections.Counter()
        self.malformed = 0
        self.short = []           # header items that carry metaroce.short
        self._walk(tree, None)

    def _walk(self, node, header):
        for k, v in items(node):
            if k == "_ws.expert":
                for ek, _ in items(v):
                    if not ek.startswith("_ws.expert"):
                        self.experts[ek] += 1
                        if ek == "metaroce.short":
                            self.short.append(header)
            elif k == "_ws.malformed":
                self.malformed += 1
            elif k.endswith("_tree"):
                self._walk(v, k[:-5] if header is None else header)


def compare_tree(fields_of, tree, spec, sub, mm, fno, stats, where):
    """Fields of one header item's subtree against `fields_of` (our fields)."""
    seen = set()
    for tk, tv in items(tree):
        if tk in ("_ws.expert", "_ws.malformed"):
            continue
        if tk.endswith("_tree"):
            if tk in sub:
                for sk, sv in items(tv):
                    if sk in ("_ws.expert", "_ws.malformed"):
                        continue
                    if sk not in sub[tk]:
                        mm.add(fno, "unknown tshark field %s" % sk, sv, None)
                        continue
                    compare_value(fields_of, sub[tk][sk], sk, sv, mm, fno, stats, where)
                    seen.add(sk)
                continue
            if tk == "metaroce.sack.base_tree":
                got, holes = sack_psns(fields_of)
                ts = collections.defaultdict(list)
                for sk, sv in items(tv):
                    ts[sk].append(num(sv))
                for key, want in (("metaroce.sack.psn", got), ("metaroce.sack.hole", holes)):
                    stats["fields"] += 1
                    if ts.get(key, []) != want:
                        mm.add(fno, "%s (%s)" % (where, key), want, ts.get(key, []))
                for sk in ts:
                    if sk not in ("metaroce.sack.psn", "metaroce.sack.hole"):
                        mm.add(fno, "unknown tshark field %s" % sk, ts[sk], None)
                continue
            mm.add(fno, "unknown tshark subtree %s" % tk, tv, None)
            continue
        if tk in CHECKED_APART:
            continue
        if tk not in spec:
            mm.add(fno, "unknown tshark field %s" % tk, tv, None)
            continue
        compare_value(fields_of, spec[tk], tk, tv, mm, fno, stats, where)
        seen.add(tk)
    for tk in list(spec) + [k for s in sub.values() for k in s]:
        if tk not in seen:
            mm.add(fno, "%s: tshark lacks %s" % (where, tk), "present", None)
    if "metaroce.sack.base" in spec and not any(k == "metaroce.sack.base_tree" for k, _ in items(tree)):
        got, holes = sack_psns(fields_of)
        stats["fields"] += 1
        if got or holes:
            mm.add(fno, "%s (metaroce.sack.psn)" % where, got, [])


def compare_value(fields_of, rule, tk, tv, mm, fno, stats, where):
    of, conv = rule
    want = of(fields_of) if callable(of) else fields_of.get(of)
    try:
        got = conv(tv)
    except (ValueError, TypeError) as ex:
        got = "<%s: %s>" % (tv, ex)
    stats["fields"] += 1
    if got != want:
        mm.add(fno, "%s.%s (tshark %s)" % (where, of if isinstance(of, str) else "derived", tk),
               want, got)


def compare_frame(pcap, t, a, mm, stats):
    fno = "%s#%s" % (os.path.basename(pcap), a.get("frame"))
    layers = dict(items(t))["_source"]
    layers = dict(items(dict(items(layers))["layers"]))
    if "metaroce" not in layers:
        if (udp_payload_len(a) or 0) < 16:
            stats["lua_too_short"] += 1  # the script leaves < 16 bytes to the built-in one
            return
        mm.add(fno, "metaroce tree", "present (TVer 1)", "absent: %s" % sorted(layers))
        return
    stats["ext"] += 1
    tree = layers["metaroce"]
    frame = Frame(tree)
    refused = a.get("roce") is False
    error = a.get("error", {}) if refused else None
    if refused:
        stats["refused"] += 1
    ours = ["BTH"] + tver1_chain(a)
    # header items in order
    header_items = [(k, v) for k, v in frame.top if k in HEADERS]
    trees = {k[:-5]: v for k, v in frame.top if k.endswith("_tree")}
    names = [HEADERS[k][0] for k, _ in header_items]
    expect_names = list(ours)
    if refused and error.get("header") in HEADER_SIZES:
        expect_names.append(error["header"])  # the item the Lua dissector marks short
    if names != expect_names:
        mm.add(fno, "headers (tshark items %s)" % [k for k, _ in header_items], expect_names, names)
        return
    for (key, val), name in zip(header_items, names):
        _, spec, sub = HEADERS[key]
        raw = hexbytes(val)
        if name not in a or (refused and name == error.get("header") and name != "BTH"):
            # the header our decode refused: the Lua item must be marked short
            if key not in frame.short:
                mm.add(fno, "%s: tshark does not mark it short" % name, "metaroce.short", None)
            stats["fields"] += 1
            continue
        mine = our_bytes(name, a[name])
        stats["fields"] += 1
        if raw != mine:
            mm.add(fno, "%s bytes (tshark %s)" % (name, key), mine.hex(), raw.hex())
        if name in ("ImmDt", "IETH"):
            field = "imm" if name == "ImmDt" else "rkey"
            stats["fields"] += 1
            if int.from_bytes(raw, "big") != a[name][field]:
                mm.add(fno, "%s.%s (tshark %s)" % (name, field, key), a[name][field],
                       int.from_bytes(raw, "big"))
        compare_tree(a[name], trees.get(key, ("obj", [])), spec, sub, mm, fno, stats, name)
    known = set(HEADERS) | {k + "_tree" for k in HEADERS} | {
        "metaroce.payload", "metaroce.pad", "metaroce.sech.tag", "infiniband.invariant.crc",
        "infiniband.invariant.crc_tree", "_ws.expert", "_ws.malformed"}
    for k, v in frame.top:
        if k not in known:
            mm.add(fno, "unknown tshark field %s" % k, v, None)

    # experts
    want = predicted_experts(a, [n for n in ours[1:] if n in a])
    import metaroce_scapy as ms
    op = a["BTH"]["opcode"]
    if a["BTH"]["resv7"] & ms.BTH_RESV7_SX and op in ms.EXT_OPCODES:
        # SX = 1 on a packet that cannot hold SECH, the headers of table 19.1, tag and ICRC
        need = 12 + 24 + sum(len(c()) for c in ms.EXT_OPCODES[op][1]) + 16 + 4
        if udp_payload_len(a) < need:
            want["metaroce.sx_short"] += 1
    if refused:
        h = error.get("header")
        if h in HEADER_SIZES or h in ("ICRC", "SecTag"):
            want["metaroce.short"] += 1
        elif (h, error.get("field")) == ("BTH", "opcode"):
            want["metaroce.unexpected_payload"] += 1
        elif (h, error.get("field")) == ("BTH", "padcount"):
            stats["padcount"] += 1
        else:
            mm.add(fno, "error the Lua comparison cannot place", None, error)
    elif a.get("icrc_ok") is False:
        want["metaroce.icrc_bad"] += 1
    if "AETH" in a and "AETH" in ours:
        syn = a["AETH"]["syndrome"]
        tr = dict(items(trees.get("infiniband.aeth", ("obj", []))))
        nak = tr.get("metaroce.aeth.nak")
        stats["fields"] += 1
        if (syn >> 5 & 3 == 3) != (nak is not None) or (nak is not None and num(nak) != syn):
            mm.add(fno, "AETH (tshark metaroce.aeth.nak)", syn if syn >> 5 & 3 == 3 else None, nak)
    stats["experts"] += sum(frame.experts.values())
    if frame.experts != want:
        mm.add(fno, "expert infos", dict(want), dict(frame.experts))
    # tshark adds a "Malformed Packet" item after each expert info of the MALFORMED group
    malformed = sum(want[k] for k in MALFORMED_GROUP)
    stats["fields"] += 1
    if frame.malformed != malformed:
        mm.add(fno, "_ws.malformed items (one per %s)" % "/".join(MALFORMED_GROUP), malformed,
               frame.malformed)
    if refused:
        return

    # payload, pad, tag, ICRC
    top = collections.OrderedDict()
    for k, v in frame.top:
        top.setdefault(k, v)
    for key, want_hex in (("metaroce.payload", a["payload"]), ("metaroce.pad", a["pad"])):
        stats["fields"] += 1
        got = hexbytes(top[key]).hex() if key in top else ""
        if got != want_hex:
            mm.add(fno, "%s (tshark %s)" % (key.split(".")[1], key), want_hex, got)
    stats["fields"] += 1
    tag = hexbytes(top["metaroce.sech.tag"]).hex() if "metaroce.sech.tag" in top else None
    if tag != (a["SecTag"]["tag"] if "SecTag" in a else None):
        mm.add(fno, "SecTag.tag (tshark metaroce.sech.tag)", a.get("SecTag", {}).get("tag"), tag)
    stats["fields"] += 2
    if num(top.get("infiniband.invariant.crc", "-1")) != a["icrc"]:
        mm.add(fno, "icrc (tshark infiniband.invariant.crc)", a["icrc"],
               top.get("infiniband.invariant.crc"))
    crc_tree = dict(items(top.get("infiniband.invariant.crc_tree", ("obj", []))))
    computed = crc_tree.get("metaroce.icrc.computed")
    if computed is None or (num(computed) == a["icrc"]) != bool(a["icrc_ok"]):
        mm.add(fno, "icrc_ok (tshark metaroce.icrc.computed)", a["icrc_ok"], computed)


def run_tshark(lua, pcap):
    cmd = ["tshark", "-n", "-X", "lua_script:" + lua, "-r", pcap, "-T", "json"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = proc.stderr.decode(errors="replace")
    lua_errors = [l for l in err.splitlines() if "lua" in l.lower()]
    if proc.returncode != 0 or lua_errors:
        sys.stderr.write(err)
        raise SystemExit("tshark with %s exited %d on %s" % (lua, proc.returncode, pcap))
    return json.loads(proc.stdout, object_pairs_hook=pairs_hook)


def self_check(runs):
    """Changes one field of each Part II header kind in a copy of our decode: each must be
    caught. Returns (caught, tried)."""
    perturb = [("MXH", "ev"), ("SACKETH", "sack_offset"), ("SACKETH", "bitmap"),
               ("CRETH", "credit"), ("RSYNETH", "count"), ("SECH", "htag"),
               ("SecTag", "tag"), (None, "payload")]
    caught, tried = [], []
    for layer, field in perturb:
        for pcap, t, o in runs:
            if not is_tver1(o) or o.get("roce") is not True:
                continue
            if layer and layer not in o or not layer and not o.get(field):
                continue
            bad = copy.deepcopy(o)
            holder = bad[layer] if layer else bad
            v = holder[field]
            if isinstance(v, str):
                holder[field] = ("%x" % (int(v[0], 16) ^ 1)) + v[1:]
            else:
                holder[field] = v ^ 1
            mm = oc.Mismatches(0)
            compare_frame(pcap, t, bad, mm, collections.Counter())
            name = "%s.%s" % (layer, field) if layer else field
            tried.append(name)
            if mm.count:
                caught.append(name)
            break
    return caught, tried


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("--pcap", action="append", required=True)
    ap.add_argument("--lua", default=DEFAULT_LUA)
    ap.add_argument("--expect-icrc-ok", action="store_true")
    ap.add_argument("--min-ext-frames", type=int, default=1)
    ap.add_argument("--no-self-check", action="store_true")
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    mm = oc.Mismatches(a.show)
    stats = collections.Counter()
    frames = others = 0
    bad_count = False
    runs = []
    for pcap in a.pcap:
        ts = run_tshark(a.lua, pcap)
        ours = oc.run_decoder(a.decoder, pcap)
        if len(ts) != len(ours):
            print("%s: tshark gives %d frames, the decoder %d" % (pcap, len(ts), len(ours)))
            bad_count = True
        for t, o in zip(ts, ours):
            frames += 1
            if not is_tver1(o):
                others += 1
                continue
            compare_frame(pcap, t, o, mm, stats)
            if a.expect_icrc_ok and o.get("roce") and o.get("icrc_ok") is not True:
                mm.add("%s#%s" % (os.path.basename(pcap), o.get("frame")), "icrc_ok", True,
                       o.get("icrc_ok"))
            if not a.no_self_check and o.get("roce") is True:
                runs.append((pcap, t, o))
    if others:
        print("compare_tshark_ext: %d frames with a TVer other than 1 (or no BTH) left to "
              "compare_tshark.py" % others)
    if stats["refused"]:
        print("compare_tshark_ext: %d TVer-1 frames our decode refuses, compared up to the error "
              "(%d of them for BTH.padcount, which the Lua dissector clamps without an expert "
              "info)" % (stats["refused"], stats["padcount"]))
    if stats["lua_too_short"]:
        print("compare_tshark_ext: %d TVer-1 frames under 16 bytes of UDP payload, which the "
              "Lua dissector leaves to the built-in one" % stats["lua_too_short"])
    ok = (mm.count == 0 and not bad_count and stats["ext"] >= a.min_ext_frames)
    print("compare_tshark_ext: %d frames in %d files, %d TVer-1 compared with %s, %d fields and "
          "%d expert infos compared, %d mismatches in %d frames: %s"
          % (frames, len(a.pcap), stats["ext"], os.path.basename(a.lua), stats["fields"],
             stats["experts"], mm.count, len(mm.frames), "PASS" if ok else "FAIL"))
    if not a.no_self_check:
        caught, tried = self_check(runs)
        missed = [x for x in tried if x not in caught]
        print("compare_tshark_ext: self-check (one field changed in our decode): %s caught%s"
              % (", ".join(caught) or "none", "; NOT CAUGHT: " + ", ".join(missed) if missed else ""))
        ok = ok and tried and not missed
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
