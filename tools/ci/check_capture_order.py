#!/usr/bin/env python3
"""Every per-test capture of a run directory is in time order: check_capture_order.py RUN_DIR.

Reads each captures/*.pcapng block by block (no dependency) and fails when an Enhanced Packet
Block is stamped earlier than the one before it, or when there is no capture at all."""
import glob, struct, sys
bad = []
files = glob.glob(sys.argv[1] + "/captures/*.pcapng")
for path in files:
    data = open(path, "rb").read()
    off, last, endian = 0, -1, "<"
    while off + 12 <= len(data):
        btype = struct.unpack_from(endian + "I", data, off)[0]
        if btype == 0x0A0D0D0A:
            endian = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
        blen = struct.unpack_from(endian + "I", data, off + 4)[0]
        if blen < 12 or off + blen > len(data):
            bad.append(path + ": truncated block")
            break
        if btype == 6:
            hi, lo = struct.unpack_from(endian + "II", data, off + 12)
            ts = hi << 32 | lo
            if ts < last:
                bad.append(path)
                break
            last = ts
        off += blen
print(len(files), "captures,", len(bad), "out of time order")
for b in bad[:5]:
    print("  " + b)
sys.exit(1 if bad or not files else 0)
