#!/usr/bin/python3
"""Evaluates every packet expression of the suite in Scapy and compares with our builder.

  compare_expressions.py DUMP.jsonl [--show 10] [--no-self-check]

DUMP.jsonl is the output of scapy_expression_dump (one line per `<`/`>` packet line:
where, dir, source, scapy, hex). Each `scapy` text is evaluated with Scapy's own layers
(Ether, Dot1Q, IP, UDP, Raw; BTH, AETH, CNPPadding from scapy.contrib.roce) and, for the
extended headers Scapy lacks (RETH, AtomicETH, AtomicAckETH, ImmDt, IETH, DETH), the
layers of metaroce_scapy.py. Opcode names are bound from Scapy's own table where it has
them, AETH syndrome names from the IBTA encoding. Scapy computes IP and UDP lengths, the
IPv4 header checksum and the ICRC. The bytes must be identical; a mismatch prints
file:line, the source line, the expression, the fields that differ and a byte diff.

The summary counts the layers by who defines them: the bytes of a metaroce_scapy layer are
compared with our own Python definition of it, not with Scapy's, and the summary says how
many there were. Unless --no-self-check, one byte of one expression's bytes is then
flipped and the comparison must catch it (so this check can fail at all). Exits 1 on any
mismatch or evaluation error, or when the dump is empty.
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scapy.config import conf  # noqa: E402
from scapy.contrib import roce  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402

import metaroce_scapy as ms  # noqa: E402

conf.verb = 0

SCAPY_LAYERS = {"Ether": Ether, "Dot1Q": Dot1Q, "IP": IP, "IPv6": IPv6, "UDP": UDP, "Raw": Raw,
                "BTH": roce.BTH, "AETH": roce.AETH, "CNPPadding": roce.CNPPadding}
EXTENSION_LAYERS = {c.__name__: c for c in (ms.RDETH, ms.DETH, ms.FETH, ms.RETH, ms.AtomicETH,
                                            ms.ImmDt, ms.IETH, ms.AtomicAckETH, ms.MXH,
                                            ms.SACKETH, ms.CRETH, ms.RSYNETH, ms.SECH,
                                            ms.SecTag)}
# IBTA AETH syndromes (9.7.5.1.1): 0x00-0x1f ACK (0x1f: no credit count), 0x20 RNR NAK,
# 0x60 | NAK code.
SYNDROMES = {"ACK": 0x1F, "RNR_NAK": 0x20, "NAK_PSN_SEQUENCE_ERROR": 0x60,
             "NAK_INVALID_REQUEST": 0x61, "NAK_REMOTE_ACCESS_ERROR": 0x62,
             "NAK_REMOTE_OPERATIONAL_ERROR": 0x63, "NAK_INVALID_RD_REQUEST": 0x64,
             # MetaRoCE Part II, section 22's table (Ext QPs only).
             "NAK_TRIMMED": 0x65, "NAK_TRIMMED_LAST_HOP": 0x66, "NAK_PSN_OUT_OF_WINDOW": 0x67,
             "NAK_OP_INVALID_REQUEST": 0x68, "NAK_OP_REMOTE_ACCESS": 0x69,
             "NAK_OP_REMOTE_OPERATIONAL": 0x6A, "NAK_RESOURCE": 0x6B}


def namespace():
    """Names an expression may use, and the opcode names Scapy itself lacks."""
    ns = dict(SCAPY_LAYERS)
    ns.update(EXTENSION_LAYERS)
    ns.update(SYNDROMES)
    ns["bytes"] = bytes
    ns["None"] = None
    scapy_names = {name: op for op, name in roce._bth_opcodes.items()}
    ns.update(scapy_names)
    not_in_scapy = set()
    for op, (name, _headers, _payload) in ms.OPCODES.items():
        if name not in ns:
            ns[name] = op
            not_in_scapy.add(name)
    # The values only extension mode has (table 19.1), named as our codec names them.
    for op in (ms._mr.OP_PROBE, ms._mr.OP_CREDIT, ms._mr.OP_RESYNC):
        ns["RC_" + ms.EXT_OPCODES[op][0]] = op
        not_in_scapy.add("RC_" + ms.EXT_OPCODES[op][0])
    return ns, not_in_scapy


def field_diff(ours, theirs):
    """Layer.field differences between Scapy's dissections of the two byte strings."""
    out = []
    a, b = Ether(ours), Ether(theirs)
    while a is not None and b is not None and a.__class__ is not conf.padding_layer:
        if a.__class__ is not b.__class__:
            out.append("layer %s (ours) vs %s (Scapy)" % (a.__class__.__name__,
                                                         b.__class__.__name__))
            break
        for f in a.fields_desc:
            va, vb = a.getfieldval(f.name), b.getfieldval(f.name)
            if va != vb:
                out.append("%s.%s: ours %r, Scapy %r" % (a.__class__.__name__, f.name, va, vb))
        a = a.payload if a.payload else None
        b = b.payload if b.payload else None
    return out


def byte_diff(ours, theirs, rows=6):
    """16-byte rows around the differing bytes: offset, ours, Scapy's."""
    out = []
    n = max(len(ours), len(theirs))
    if len(ours) != len(theirs):
        out.append("length: ours %d, Scapy %d" % (len(ours), len(theirs)))
    for start in range(0, n, 16):
        x, y = ours[start:start + 16], theirs[start:start + 16]
        if x != y:
            out.append("  %04x ours  %s" % (start, x.hex(" ")))
            out.append("  %04x scapy %s" % (start, y.hex(" ")))
            if len(out) >= 2 * rows:
                out.append("  ...")
                break
    return out


def evaluate(rec, ns):
    pkt = eval(rec["scapy"], {"__builtins__": {}}, dict(ns))  # noqa: S307 (our own dump)
    return pkt, bytes(pkt)


def compare(records, ns, show):
    bad = 0
    for rec in records:
        ours = bytes.fromhex(rec["hex"])
        try:
            _pkt, theirs = evaluate(rec, ns)
        except Exception as e:  # noqa: BLE001 -- any failure of Scapy is a finding
            bad += 1
            if bad <= show:
                print("%s: Scapy cannot evaluate the expression: %s: %s\n  source: %s\n  scapy:  %s"
                      % (rec["where"], e.__class__.__name__, e, rec["source"].strip(),
                         rec["scapy"]))
            continue
        if ours == theirs:
            continue
        bad += 1
        if bad <= show:
            print("%s: bytes differ\n  source: %s\n  scapy:  %s" % (rec["where"],
                                                                  rec["source"].strip(),
                                                                  rec["scapy"]))
            for line in field_diff(ours, theirs) + byte_diff(ours, theirs):
                print("  " + line)
    return bad


def ext_bytes(pkt):
    """Bytes of the layers metaroce_scapy defines, in one built packet."""
    n = 0
    layer = pkt
    while layer:
        if layer.__class__.__name__ in EXTENSION_LAYERS:
            n += len(bytes(layer.__class__(**layer.fields)))
        layer = layer.payload
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dump")
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--no-self-check", action="store_true")
    args = ap.parse_args()
    with open(args.dump) as f:
        records = [json.loads(line) for line in f if line.strip()]
    if not records:
        raise SystemExit("no packet expressions in %s" % args.dump)
    ns, not_in_scapy = namespace()

    bad = compare(records, ns, args.show)

    files = {r["where"].rsplit(":", 1)[0] for r in records}
    dirs = collections.Counter(r["dir"] for r in records)
    layers = collections.Counter(name for r in records for name in r["layers"])
    own = ", ".join("%s %d" % (n, layers[n]) for n in SCAPY_LAYERS if layers[n])
    ext = ", ".join("%s %d" % (n, layers[n]) for n in EXTENSION_LAYERS if layers[n])
    names = collections.Counter(n for r in records for n in not_in_scapy
                                if ("=" + n + ",") in r["scapy"] or ("=" + n + ")") in r["scapy"])
    total_bytes = sum(len(r["hex"]) // 2 for r in records)
    ext_total = 0
    for r in records:
        if any(n in EXTENSION_LAYERS for n in r["layers"]):
            try:
                ext_total += ext_bytes(evaluate(r, ns)[0])
            except Exception:  # noqa: BLE001 -- already counted as a failure above
                pass
    print("scapy expressions: %d (%d '<', %d '>') from %d files; %d differ or fail in Scapy"
          % (len(records), dirs["<"], dirs[">"], len(files), bad))
    print("  layers Scapy defines (compared with Scapy): %s" % own)
    print("  layers Scapy lacks (compared with tools/oracles/metaroce_scapy.py, not Scapy): %s"
          % (ext or "none"))
    ipv6 = sum(1 for r in records if "IPv6" in r["layers"])
    print("  bytes compared: %d, of which %d in metaroce_scapy layers; lengths, checksums and "
          "ICRC computed by Scapy (the ICRC of %d IPv6 packets by metaroce_scapy: Scapy 2.5 "
          "computes it over IPv4 only)" % (total_bytes, ext_total, ipv6))
    if names:
        print("  opcode names Scapy lacks (bound from metaroce_scapy.OPCODES): %s"
              % ", ".join("%s %d" % kv for kv in sorted(names.items())))

    if not args.no_self_check and bad == 0:
        # A builder that changes one byte must be caught: flip one BTH byte (the PSN's low
        # byte: Ether 14 + IP 20 + UDP 8 + 11) of the first expression.
        rec = dict(records[0])
        b = bytearray.fromhex(rec["hex"])
        b[14 + 20 + 8 + 11] ^= 0x01
        rec["hex"] = b.hex()
        if compare([rec], ns, 0) != 1:
            raise SystemExit("self-check: a flipped PSN byte was not caught")
        print("  self-check: a flipped PSN byte in %s is caught" % rec["where"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
