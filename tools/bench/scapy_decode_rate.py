"""Scapy's dissection rate on the first N frames of a capture, in packets per second.

The anchor for `./metaroce bench codec`: Scapy dissects Ether / IP / UDP / BTH / AETH ...
(scapy.contrib.roce) and every field is read, as a decoder must. Scapy does not verify the
ICRC on dissection, so this anchor does less work than the decoder it is compared with.
"""
import sys
import time

from scapy.all import PcapNgReader, PcapReader  # noqa: F401
import scapy.contrib.roce  # noqa: F401  (binds BTH to UDP 4791)


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    raw = []
    with PcapNgReader(path) if path.endswith(".pcapng") else PcapReader(path) as r:
        for pkt in r:
            raw.append(bytes(pkt))
            if len(raw) == count:
                break
    from scapy.layers.l2 import Ether
    start = time.perf_counter()
    for b in raw:
        p = Ether(b)
        layer = p
        while layer:  # touch every field of every layer
            for f in layer.fields_desc:
                layer.getfieldval(f.name)
            layer = layer.payload if layer.payload else None
    elapsed = time.perf_counter() - start
    print(len(raw) / elapsed)


if __name__ == "__main__":
    main()
