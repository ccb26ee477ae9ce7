#!/usr/bin/python3
"""Every secure packet of the suite's secure-mode captures, checked by the spec's own
implementation (docs/spec/tools/secure.py, AES-GCM of docs/spec/tools/aes_gcm.py): an oracle
independent of the C++ sealer, opener and libcrypto.

    secure_capture_check.py SPEC_TOOLS_DIR CAPTURE...

Keys: the example SA of spec section 27 for epoch 1, and for epoch e the same keys with
their first byte XORed with e >> 8 and the second with (e & 0xff) ^ 1, and SPI + 0x10000 x
(e - 1), as docs/test-language.md
("Secure mode") says the harness installs them. Every packet the DUT (198.18.0.2) sent with
SX = 1 must verify; the tester's may not where a script forged one on purpose, so those are
counted, and the run fails if too few verify to mean anything.
"""
import struct
import sys


def sa_for(secure, direction_to_dut, epoch):
    base = secure.EXAMPLE_SA["tx" if direction_to_dut else "rx"]
    key = bytearray(base["key"])
    key[0] ^= epoch >> 8
    key[1] ^= (epoch & 0xFF) ^ 1
    return {"key": bytes(key), "salt": base["salt"],
            "spi": base["spi"] + 0x10000 * (epoch - 1), "epoch": epoch}


def main():
    sys.path.insert(0, sys.argv[1])
    import secure  # noqa: E402
    from scapy.all import rdpcap  # noqa: E402
    counts = {"dut_ok": 0, "dut_bad": 0, "tester_ok": 0, "tester_bad": 0}
    for path in sys.argv[2:]:
        for n, frame in enumerate(rdpcap(path), 1):
            raw = bytes(frame)
            if len(raw) < 14 + 20 + 8 + 12 or raw[12:14] != b"\x08\x00":
                continue
            ip = raw[14:]
            ihl = (ip[0] & 0x0F) * 4
            total = struct.unpack("!H", ip[2:4])[0]
            ip = ip[:total]
            bth = ip[ihl + 8:]
            if ip[9] != 17 or bth[1] & 0x0F != 1 or not bth[8] & secure.BTH_SX:
                continue
            epoch = struct.unpack("!H", bth[14:16])[0]
            from_dut = ip[12:16] == bytes([198, 18, 0, 2])
            err = secure.verify_ip(ip, sa_for(secure, not from_dut, epoch))
            key = ("dut" if from_dut else "tester") + ("_bad" if err else "_ok")
            counts[key] += 1
            if err and from_dut:
                print("%s frame %d (DUT, epoch %d): %s" % (path, n, epoch, err))
    print("secure_capture_check: %(dut_ok)d DUT packets verify, %(dut_bad)d do not; "
          "%(tester_ok)d tester packets verify, %(tester_bad)d forged on purpose" % counts)
    ok = counts["dut_bad"] == 0 and counts["dut_ok"] >= 20 and counts["tester_ok"] >= 20
    ok = ok and counts["tester_bad"] <= 10
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
