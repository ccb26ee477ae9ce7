#!/usr/bin/python3
"""Checks that decode and analyze read Linux cooked captures as Ethernet ones, and refuse
the link types they cannot read.

  cooked_capture_check.py --decoder PATH/metaroce --pcap A.pcapng [--pcap B.pcap ...] --tmp DIR

For each Ethernet capture, Scapy re-wraps every frame: the Ethernet header replaced by a
CookedLinux (LINKTYPE_LINUX_SLL 113) or CookedLinuxV2 (LINKTYPE_LINUX_SLL2 276) header
whose protocol is the frame's ethertype (0x0800, 0x86dd, 0x8100 before a tag), the rest of
the bytes as they were. The Ethernet reference is the same frames written by Scapy too
(pcap: packet comments are dropped from both alike). editcap turns the SLL2 pcap into a
pcapng. Then, against the Ethernet reference:
- `decode` prints the same line for every RoCEv2 and not-RoCE frame; a refused frame's line
  differs only by its first header and by the byte offset of the error (shifted by the
  cooked header's extra bytes);
- `decode --json` gives the same object but for the link layer and those offsets;
- `analyze --json` (one thread and two) gives the same counts, flows and violations.
A DLT_RAW (101) and a USER0 (147) capture of the same packets, pcap and pcapng, must be
refused by decode and analyze: exit status 2, the file, number and name of the link type
on stderr.
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle_common as oc  # noqa: E402
from scapy.layers.l2 import CookedLinux, CookedLinuxV2  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import rdpcap, wrpcap  # noqa: E402

# Bytes a cooked header has beyond Ethernet's 14.
EXTRA = {"CookedLinux": 16 - 14, "CookedLinuxV2": 20 - 14}


def sll(frame):
    return CookedLinux(pkttype=4, lladdrtype=1, lladdrlen=6, src=frame[6:12] + b"\0\0",
                       proto=int.from_bytes(frame[12:14], "big")) / Raw(frame[14:])


def sll2(frame):
    return CookedLinuxV2(proto=int.from_bytes(frame[12:14], "big"), ifindex=3, lladdrtype=1,
                         pkttype=0, lladdrlen=6, src=frame[6:12] + b"\0\0") / Raw(frame[14:])


def write(path, packets, originals, linktype, extra):
    for p, o in zip(packets, originals):
        p.time = o.time
        p.wirelen = (o.wirelen or len(o)) + extra
    wrpcap(path, packets, linktype=linktype)


def run(decoder, *args):
    return subprocess.run([decoder] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def shift_offsets(text, by):
    return re.sub(r"at byte (\d+)", lambda m: "at byte %d" % (int(m.group(1)) - by), text)


def check_decode_text(decoder, mm, name, ethernet, cooked, layer):
    e = run(decoder, "decode", ethernet)
    c = run(decoder, "decode", cooked)
    if e.returncode != 0 or c.returncode != 0:
        mm.add(name, "decode exit", (0, 0), (e.returncode, c.returncode, c.stderr.strip()))
        return 0
    el, cl = e.stdout.splitlines(), c.stdout.splitlines()
    if len(el) != len(cl):
        mm.add(name, "decode lines", len(el), len(cl))
    for n, (a, b) in enumerate(zip(el, cl), 1):
        if "[Malformed:" in a:
            a = re.sub(r" Ether \S+ > \S+ type (0x[0-9a-f]{4})", r" LINK proto \1", a)
            b = re.sub(r" %s proto (0x[0-9a-f]{4})( ifindex \d+)?" % layer, r" LINK proto \1", b)
            b = shift_offsets(b, EXTRA[layer])
        if a != b:
            mm.add("%s#%d" % (name, n), "decode line", a, b)
    return len(el)


def check_decode_json(decoder, mm, name, ethernet, cooked, layer):
    e, c = oc.run_decoder(decoder, ethernet), oc.run_decoder(decoder, cooked)
    if len(e) != len(c):
        mm.add(name, "frames", len(e), len(c))
    for a, b in zip(e, c):
        f = "%s#%s" % (name, a.get("frame"))
        if b.get("caplen") != a.get("caplen") + EXTRA[layer]:
            mm.add(f, "caplen", a.get("caplen") + EXTRA[layer], b.get("caplen"))
        if "layers" in a and a["layers"]:
            if b.get("layers", [None])[0] != layer or a["layers"][0] != "Ether":
                mm.add(f, "layers[0]", layer, b.get("layers"))
            elif b[layer]["proto"] != a["Ether"]["type"]:
                mm.add(f, layer + ".proto", a["Ether"]["type"], b[layer]["proto"])
            a = dict(a, layers=a["layers"][1:])
            b = dict(b, layers=b["layers"][1:])
            a.pop("Ether")
            b.pop(layer, None)
        if "error" in b:
            b = dict(b, error=dict(b["error"], offset=b["error"]["offset"] - EXTRA[layer]))
        for k in sorted((set(a) | set(b)) - {"caplen"}):
            if a.get(k) != b.get(k):
                mm.add(f, k, a.get(k), b.get(k))


def check_analyze(decoder, mm, name, ethernet, cooked, layer):
    for threads in ("1", "2"):
        e = run(decoder, "analyze", ethernet, "--json", "--threads", threads)
        c = run(decoder, "analyze", cooked, "--json", "--threads", threads)
        if e.returncode != c.returncode or e.returncode not in (0, 1):
            mm.add(name, "analyze exit", e.returncode, (c.returncode, c.stderr.strip()))
            continue
        a, b = json.loads(e.stdout), json.loads(c.stdout)
        a.pop("file")
        b.pop("file")
        for v in b["violations"]:
            v["text"] = shift_offsets(v["text"], EXTRA[layer])
        if a != b:
            for k in sorted(set(a) | set(b)):
                if a.get(k) != b.get(k):
                    mm.add("%s --threads %s" % (name, threads), "analyze " + k, a.get(k), b.get(k))


def check_refused(decoder, mm, path, linktype, name):
    for args in (["decode", path], ["decode", path, "--json"], ["analyze", path],
                 ["analyze", path, "--json", "--threads", "1"]):
        r = run(decoder, *args)
        want = "link type %d (%s)" % (linktype, name)
        if r.returncode != 2 or path not in r.stderr or want not in r.stderr:
            mm.add(" ".join(args), "refusal", "exit 2, %s and '%s' on stderr" % (path, want),
                   (r.returncode, r.stderr.strip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("--pcap", action="append", required=True)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    mm = oc.Mismatches()
    frames = 0
    for pcap in a.pcap:
        base = os.path.splitext(os.path.basename(pcap))[0]
        originals = rdpcap(pcap)
        raw = [bytes(p) for p in originals]
        ethernet = os.path.join(a.tmp, base + "-ether.pcap")
        write(ethernet, [Raw(b) for b in raw], originals, 1, 0)
        cooked = {"CookedLinux": os.path.join(a.tmp, base + "-sll.pcap"),
                  "CookedLinuxV2": os.path.join(a.tmp, base + "-sll2.pcap")}
        write(cooked["CookedLinux"], [sll(b) for b in raw], originals, 113, EXTRA["CookedLinux"])
        write(cooked["CookedLinuxV2"], [sll2(b) for b in raw], originals, 276,
              EXTRA["CookedLinuxV2"])
        sll2_ng = os.path.join(a.tmp, base + "-sll2.pcapng")
        subprocess.run(["editcap", "-F", "pcapng", cooked["CookedLinuxV2"], sll2_ng], check=True)
        for layer, path in list(cooked.items()) + [("CookedLinuxV2", sll2_ng)]:
            name = os.path.basename(path)
            frames += check_decode_text(a.decoder, mm, name, ethernet, path, layer)
            check_decode_json(a.decoder, mm, name, ethernet, path, layer)
            check_analyze(a.decoder, mm, name, ethernet, path, layer)
        # The same packets from their IP header on: link types the decoder does not read.
        ip_only = [Raw(b[14:]) for b in raw if b[12:14] in (b"\x08\x00", b"\x86\xdd")]
        for linktype, lt_name in ((101, "LINKTYPE_RAW"), (147, "LINKTYPE_USER0")):
            path = os.path.join(a.tmp, "%s-%d.pcap" % (base, linktype))
            wrpcap(path, ip_only, linktype=linktype)
            check_refused(a.decoder, mm, path, linktype, lt_name)
            ng = path + "ng"
            subprocess.run(["editcap", "-F", "pcapng", path, ng], check=True)
            check_refused(a.decoder, mm, ng, linktype, lt_name)
    ok = mm.count == 0 and frames > 0
    print("cooked_capture_check: %d frames in %d captures, each as SLL, SLL2 and SLL2 pcapng; "
          "%d mismatches: %s" % (frames // 3, len(a.pcap), mm.count, "PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
