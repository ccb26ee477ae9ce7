#!/usr/bin/python3
"""Compares `metaroce decode --json` with Scapy's dissection of a scapy_corpus.py corpus.

  compare_scapy.py --decoder PATH/metaroce --pcap FILE.pcap --expect FILE.jsonl
                   [--no-self-check] [--show 20]

Every field of every layer Scapy has is compared (and a field our layer has that Scapy's
lacks is a mismatch), then the payload and pad bytes, the ICRC (ours must equal Scapy's
computed one, and icrc_ok must be true), opcode_name and opcode_known. Where Scapy lacks a
layer the expected line carries its bytes as "ext_raw": our decoded extended headers,
re-serialized with metaroce_scapy, must give exactly those bytes.

Part II (TVer-1) frames are compared layer by layer like the others (MXH, SACKETH, CRETH,
RSYNETH, SECH, SecTag); SCAPY_TO_JSON maps Scapy's conventions to the decode contract's
(SACKETH.sack_offset signed -> unsigned 16-bit, htag/tag bytes -> hex strings). A frame
the expected line says is refused ("roce": false with an "error" naming a header, as
scapy_corpus.py expects of a TVer-1 frame too short for its headers) must be refused naming
that header (and field, when given), with the layers read whole before the error equal to
Scapy's, field by field.

Prints the first mismatches (frame, layer.field, expected vs actual) and a summary; exits 1
on any mismatch or when the decoder gives fewer frames than expected.

Part II (Ext) corpora (ext_corpus.py, make_golden.py) compare the same way: Scapy has every
Part II layer, so their lines carry no "ext_raw".

Unless --no-self-check, it then flips one BTH byte of one packet in a temporary copy and
checks that the comparison catches it (so this check can fail at all), and changes one field
of each Part II layer present in a copy of its first expected line: each must be caught.
"""

import argparse
import ipaddress
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import oracle_common as oc  # noqa: E402

EXT_NAMES = ["RDETH", "DETH", "FETH", "RETH", "AtomicETH", "ImmDt", "IETH", "AETH",
             "AtomicAckETH", "CNPPadding"]


def _hex_string(v):
    return v.lower() if isinstance(v, str) else v


# Where the decode contract writes a field differently from Scapy (docs/decode-json.md,
# "Part II (Ext) frames"), Scapy's value as the contract writes it. The expected lines keep
# Scapy's values; this is the one place they are mapped.
SCAPY_TO_JSON = {
    # Scapy's SignedShortField: -8 is the wire's 0xfff8, 65528 in the JSON
    ("SACKETH", "sack_offset"): lambda v: v & 0xFFFF if isinstance(v, int) else v,
    # AEAD outputs: bytes in Scapy, hex strings in the JSON (the expected line holds the
    # bytes as hex already: JSON has no bytes)
    ("SECH", "htag"): _hex_string,
    ("SecTag", "tag"): _hex_string,
}


def norm(layer, field, v):
    if layer == "SACKETH" and field == "sack_offset" and isinstance(v, int):
        return v & 0xFFFF  # Scapy shows it signed, the decode as the wire's 16 bits
    if isinstance(v, str):
        if layer == "IPv6" and field in ("src", "dst"):
            try:
                return str(ipaddress.IPv6Address(v))
            except ValueError:
                return v
        return v.lower()
    return v


def reserialize(layer_name, fields):
    import metaroce_scapy as ms
    cls = getattr(ms, layer_name)
    return bytes(cls(**fields))


def compare_frame(e, a, mm):
    f = e["frame"]
    if a.get("frame") != f:
        mm.add(f, "frame", f, a.get("frame"))
    if e.get("roce") is False:
        # a frame that is not RoCE, or is malformed: what kind it is, the header (and
        # field) the error names, and the headers read whole before it where expected
        for k in ("roce", "caplen", "opcode_name"):
            if k in e and e.get(k) != a.get(k):
                mm.add(f, k, e.get(k), a.get(k))
        kind = "error" if "error" in e else "not_roce"
        if kind not in a:
            mm.add(f, kind, e[kind], a.get("error") or a.get("not_roce"))
        elif kind == "error" and "header" in e["error"]:
            for k in ("header", "field"):
                if k in e["error"] and e["error"].get(k) != a["error"].get(k):
                    mm.add(f, "error." + k, e["error"].get(k), a["error"].get(k))
        if "layers" in e:
            if e["layers"] != a.get("layers"):
                mm.add(f, "layers (read before the error)", e["layers"], a.get("layers"))
            else:
                compare_layers(f, e, a, e["layers"], mm)
        return
    for k in ("roce", "caplen", "opcode_name", "payload", "payload_len", "pad", "icrc"):
        if e.get(k) != a.get(k):
            mm.add(f, k, e.get(k), a.get(k))
    if e.get("opcode_known", True) != a.get("opcode_known", True):
        mm.add(f, "opcode_known", e.get("opcode_known", True), a.get("opcode_known", True))
    if a.get("icrc_ok") is not True:
        mm.add(f, "icrc_ok", True, a.get("icrc_ok"))
    if round(e["time"] * 1e6) != round(float(a.get("time", -1)) * 1e6):
        mm.add(f, "time", e["time"], a.get("time"))
    if not a.get("roce"):
        return
    el, al = e["layers"], a.get("layers", [])
    if al[:len(el)] != el:
        mm.add(f, "layers", el, al)
        return
    extra = al[len(el):]
    if "ext_raw" in e or extra:
        if any(x not in EXT_NAMES for x in extra):
            mm.add(f, "layers", el + ["<extended headers>"], al)
        else:
            try:
                got = b"".join(reserialize(x, a[x]) for x in extra).hex()
            except Exception as ex:  # a field our layer does not have, a value too wide
                got = "<cannot re-serialize: %s>" % ex
            if got != e.get("ext_raw", ""):
                mm.add(f, "+".join(extra) + " (bytes of the headers Scapy lacks)",
                       e.get("ext_raw", ""), got)
    compare_layers(f, e, a, el, mm)


def compare_layers(f, e, a, names, mm):
    """Every field of every expected layer; each layer's fields must be exactly Scapy's."""
    for layer in names:
        ef, af = e[layer], a.get(layer)
        if not isinstance(af, dict):
            mm.add(f, layer, ef, af)
            continue
        for k, v in ef.items():
            mm.compared += 1
            want = SCAPY_TO_JSON.get((layer, k), lambda x: x)(v)
            if norm(layer, k, want) != norm(layer, k, af.get(k)):
                mm.add(f, "%s.%s" % (layer, k), want, af.get(k))
        for k in af:
            if k not in ef:
                mm.add(f, "%s.%s (a field Scapy's layer lacks)" % (layer, k), None, af[k])


def compare(decoder, pcap, expect_path, show):
    expect = oc.read_jsonl(expect_path)
    actual = oc.run_decoder(decoder, pcap)
    mm = oc.Mismatches(show)
    for i, e in enumerate(expect):
        if i >= len(actual):
            break
        compare_frame(e, actual[i], mm)
    short = len(actual) < len(expect)
    if short:
        print("decoder gave %d frames, expected %d" % (len(actual), len(expect)))
    if len(actual) > len(expect):
        print("decoder gave %d frames, expected %d" % (len(actual), len(expect)))
        short = True
    return len(expect), mm, short, expect, actual


# One field of each Part II layer, for the self-check: changed in a copy of the expected line
# of the first frame that has the layer, the comparison must name it.
PART2_SELF_CHECK = [("MXH", "msn"), ("SACKETH", "sack_offset"), ("CRETH", "credit"),
                    ("RSYNETH", "count"), ("SECH", "htag"), ("SecTag", "tag")]


def part2_self_check(expect, actual):
    """Returns (caught, tried): the Part II fields whose change the comparison caught."""
    caught, tried = [], []
    for layer, field in PART2_SELF_CHECK:
        for e, a in zip(expect, actual):
            if e.get("roce") is not True or layer not in e:
                continue
            bad = json.loads(json.dumps(e))
            v = bad[layer][field]
            bad[layer][field] = ("%x" % (int(v[0], 16) ^ 1)) + v[1:] if isinstance(v, str) else v ^ 1
            mm = oc.Mismatches(0)
            compare_frame(bad, json.loads(json.dumps(a)), mm)
            tried.append("%s.%s" % (layer, field))
            if mm.count:
                caught.append("%s.%s" % (layer, field))
            break
    return caught, tried


def flip_bth_byte(src, dst, frame_index):
    """Copies a classic pcap, flipping the PSN's last byte of packet `frame_index`."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    off = 24
    for _ in range(frame_index):
        off += 16 + struct.unpack_from("<I", data, off + 8)[0]
    pkt = off + 16
    l3 = 14 + (4 if data[pkt + 12:pkt + 14] == b"\x81\x00" else 0)
    ipv6 = (data[pkt + l3] >> 4) == 6
    bth = l3 + (40 if ipv6 else (data[pkt + l3] & 0x0F) * 4) + 8
    data[pkt + bth + 11] ^= 0x01
    with open(dst, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--no-self-check", action="store_true")
    a = ap.parse_args()

    n, mm, short, expect, actual = compare(a.decoder, a.pcap, a.expect, a.show)
    ok = mm.count == 0 and not short
    tver1 = [e for e in expect if e.get("BTH", {}).get("version") == 1]
    if tver1:
        print("compare_scapy: %d TVer-1 (Ext) frames, %d secure, %d expected refused naming "
              "their header" % (len(tver1), sum(1 for e in tver1 if "SECH" in e or (
                  e["BTH"]["resv7"] & 0x40 and e.get("opcode_known", True))),
                  sum(1 for e in tver1 if e.get("roce") is False)))
    print("compare_scapy: %d frames compared, %d layer fields compared, %d mismatches in %d "
          "frames: %s" % (n, mm.compared, mm.count, len(mm.frames), "PASS" if ok else "FAIL"))

    if not a.no_self_check:
        tmp = tempfile.mkdtemp(prefix="compare_scapy_")
        try:
            bad = os.path.join(tmp, "flipped.pcap")
            victim = min(7, n - 1)
            flip_bth_byte(a.pcap, bad, victim)
            import io
            import contextlib
            with contextlib.redirect_stdout(io.StringIO()):
                _, mm2, _, _, _ = compare(a.decoder, bad, a.expect, 0)
            caught = (victim + 1) in mm2.frames
            print("compare_scapy: self-check (BTH psn byte of frame %d flipped): %s"
                  % (victim + 1, "caught, %d mismatches" % mm2.count if caught else "NOT CAUGHT"))
            ok = ok and caught
        finally:
            shutil.rmtree(tmp)
        caught, tried = part2_self_check(expect, actual)
        if tried:
            missed = [x for x in tried if x not in caught]
            print("compare_scapy: self-check (one Part II field changed in an expected line): "
                  "%s caught%s" % (", ".join(caught) or "none",
                                   "; NOT CAUGHT: " + ", ".join(missed) if missed else ""))
            ok = ok and not missed
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
