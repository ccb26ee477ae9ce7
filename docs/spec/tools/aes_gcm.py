#!/usr/bin/python3
"""AES (FIPS 197) and AES-GCM (NIST SP 800-38D) in pure Python, for the spec's examples.

    /usr/bin/python3 docs/spec/tools/aes_gcm.py --selftest   # FIPS 197 and GCM test vectors

Library use: seal(key, nonce, aad, plaintext) -> (ciphertext, 16-byte tag) and
open_(key, nonce, aad, ciphertext, tag) -> plaintext or None. Keys of 16, 24 or 32 bytes,
96-bit nonces only. This is a slow, straightforward implementation written to compute and
check the secure-mode worked examples of metaroce.md section 27 (secure mode: section 19.4);
it is not constant-time and must never protect real data. Standard library only.
"""
import sys

SBOX = []
INV_SBOX = [0] * 256


def _build_sbox():
    # Multiplicative inverse in GF(2^8) followed by the FIPS 197 affine map.
    inv = [0] * 256
    for a in range(1, 256):
        for b in range(1, 256):
            if _gmul(a, b) == 1:
                inv[a] = b
                break
    for x in range(256):
        b = inv[x]
        s = b
        for i in range(1, 5):
            s ^= ((b << i) | (b >> (8 - i))) & 0xFF
        s ^= 0x63
        SBOX.append(s)
        INV_SBOX[s] = x


def _gmul(a, b):
    p = 0
    while b:
        if b & 1:
            p ^= a
        a = ((a << 1) ^ 0x11B) if a & 0x80 else (a << 1)
        b >>= 1
    return p


_build_sbox()


def _expand_key(key):
    nk = len(key) // 4
    if len(key) not in (16, 24, 32):
        raise ValueError("AES key must be 16, 24 or 32 bytes")
    nr = nk + 6
    words = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    rcon = 1
    for i in range(nk, 4 * (nr + 1)):
        t = list(words[i - 1])
        if i % nk == 0:
            t = t[1:] + t[:1]
            t = [SBOX[x] for x in t]
            t[0] ^= rcon
            rcon = _gmul(rcon, 2)
        elif nk > 6 and i % nk == 4:
            t = [SBOX[x] for x in t]
        words.append([words[i - nk][j] ^ t[j] for j in range(4)])
    return [sum(words[4 * r:4 * r + 4], []) for r in range(nr + 1)]


def encrypt_block(round_keys, block):
    """Encrypt one 16-byte block with an expanded key (FIPS 197 Cipher())."""
    s = [b ^ k for b, k in zip(block, round_keys[0])]
    nr = len(round_keys) - 1
    for r in range(1, nr + 1):
        s = [SBOX[x] for x in s]
        # ShiftRows: state is column-major, byte (row i, column c) at index 4c + i.
        s = [s[(4 * ((c + i) % 4)) + i] for c in range(4) for i in range(4)]
        if r != nr:
            m = []
            for c in range(4):
                a = s[4 * c:4 * c + 4]
                m += [_gmul(a[0], 2) ^ _gmul(a[1], 3) ^ a[2] ^ a[3],
                      a[0] ^ _gmul(a[1], 2) ^ _gmul(a[2], 3) ^ a[3],
                      a[0] ^ a[1] ^ _gmul(a[2], 2) ^ _gmul(a[3], 3),
                      _gmul(a[0], 3) ^ a[1] ^ a[2] ^ _gmul(a[3], 2)]
            s = m
        s = [b ^ k for b, k in zip(s, round_keys[r])]
    return bytes(s)


def aes_encrypt(key, block):
    return encrypt_block(_expand_key(key), block)


R_GCM = 0xE1 << 120


def _ghash_mul(x, y):
    z, v = 0, y
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ R_GCM if v & 1 else v >> 1
    return z


def _ghash(h, aad, ct):
    def blocks(data):
        for i in range(0, len(data), 16):
            yield int.from_bytes(data[i:i + 16].ljust(16, b"\0"), "big")
    y = 0
    for b in list(blocks(aad)) + list(blocks(ct)):
        y = _ghash_mul(y ^ b, h)
    lens = ((8 * len(aad)) << 64) | (8 * len(ct))
    return _ghash_mul(y ^ lens, h)


def _gctr(rk, icb, data):
    out = bytearray()
    ctr = int.from_bytes(icb, "big")
    for i in range(0, len(data), 16):
        ks = encrypt_block(rk, ctr.to_bytes(16, "big"))
        out += bytes(a ^ b for a, b in zip(data[i:i + 16], ks))
        ctr = (ctr & ~0xFFFFFFFF) | ((ctr + 1) & 0xFFFFFFFF)
    return bytes(out)


def seal(key, nonce, aad, plaintext):
    """AES-GCM authenticated encryption; returns (ciphertext, tag of 16 bytes)."""
    if len(nonce) != 12:
        raise ValueError("this implementation takes 96-bit nonces only")
    rk = _expand_key(key)
    h = int.from_bytes(encrypt_block(rk, bytes(16)), "big")
    j0 = nonce + b"\x00\x00\x00\x01"
    inc = nonce + b"\x00\x00\x00\x02"
    ct = _gctr(rk, inc, plaintext)
    s = _ghash(h, aad, ct)
    tag = bytes(a ^ b for a, b in zip(encrypt_block(rk, j0), s.to_bytes(16, "big")))
    return ct, tag


def open_(key, nonce, aad, ciphertext, tag):
    """AES-GCM authenticated decryption; returns the plaintext, or None if the tag fails."""
    rk = _expand_key(key)
    h = int.from_bytes(encrypt_block(rk, bytes(16)), "big")
    j0 = nonce + b"\x00\x00\x00\x01"
    s = _ghash(h, aad, ciphertext)
    want = bytes(a ^ b for a, b in zip(encrypt_block(rk, j0), s.to_bytes(16, "big")))
    if want[:len(tag)] != tag or not tag:
        return None
    return _gctr(rk, nonce + b"\x00\x00\x00\x02", ciphertext)


# FIPS 197 appendix C and the GCM test cases of the GCM submission to NIST (McGrew and
# Viega), which SP 800-38D's validation vectors include.
_GCM_P3 = ("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
           "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
_GCM_AAD = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
VECTORS = {
    "fips197-c1-aes128": ("000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
                          "69c4e0d86a7b0430d8cdb78070b4c55a"),
    "fips197-c3-aes256": ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
                          "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089"),
}
GCM_VECTORS = [
    # name, key, iv, aad, plaintext, ciphertext, tag
    ("gcm-tc1", "00" * 16, "00" * 12, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a"),
    ("gcm-tc2", "00" * 16, "00" * 12, "", "00" * 16, "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf"),
    ("gcm-tc3", "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", "", _GCM_P3,
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
     "4d5c2af327cd64a62cf35abd2ba6fab4"),
    ("gcm-tc4", "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", _GCM_AAD,
     _GCM_P3[:120],
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"),
    ("gcm-tc13", "00" * 32, "00" * 12, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"),
    ("gcm-tc14", "00" * 32, "00" * 12, "", "00" * 16, "cea7403d4d606b6e074ec5d3baf39d18",
     "d0d1c8a799996bf0265b98b5d48ab919"),
    ("gcm-tc16", "feffe9928665731c6d6a8f9467308308" * 2, "cafebabefacedbaddecaf888", _GCM_AAD,
     _GCM_P3[:120],
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"),
]


def selftest():
    bad = 0
    for name, (k, p, c) in VECTORS.items():
        got = aes_encrypt(bytes.fromhex(k), bytes.fromhex(p)).hex()
        ok = got == c
        bad += not ok
        print("%-20s %s" % (name, "ok" if ok else "FAIL got %s want %s" % (got, c)))
    for name, k, iv, a, p, c, t in GCM_VECTORS:
        ct, tag = seal(bytes.fromhex(k), bytes.fromhex(iv), bytes.fromhex(a), bytes.fromhex(p))
        ok = ct.hex() == c and tag.hex() == t
        pt = open_(bytes.fromhex(k), bytes.fromhex(iv), bytes.fromhex(a), ct, tag)
        ok = ok and pt == bytes.fromhex(p)
        forged = open_(bytes.fromhex(k), bytes.fromhex(iv), bytes.fromhex(a), ct,
                       bytes([tag[0] ^ 1]) + tag[1:])
        ok = ok and forged is None
        bad += not ok
        print("%-20s %s" % (name, "ok" if ok else "FAIL ct %s tag %s" % (ct.hex(), tag.hex())))
    print("aes_gcm selftest: %s" % ("OK" if not bad else "%d FAILED" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(selftest())
    print(__doc__)
    sys.exit(2)
