// File: sech.h
//
// Secure mode (spec section 19.4): the 24-byte SECH directly after the BTH of a packet
// whose BTH has TVer 1 and SX (Resv7 bit 6) set, and the 16-byte AES-256-GCM tag between
// the pad and the ICRC. The codec carries both as bytes; it neither encrypts nor checks
// tags (docs/spec/tools/secure.py does, from the key).
//   SECH:   ver(4) suite(4) resv8(8) epoch(16) spi(32) pn(64) htag(8 bytes)
//   SecTag: tag(16 bytes)
#pragma once

#include <string_view>

#include "reference/wire/byte_array.h"
#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/opcode.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

inline constexpr unsigned kSecureSuiteAes256Gcm = 1;

struct Sech {
  static constexpr std::string_view kName = "SECH";
  static constexpr unsigned kSize = kSechSize;

  u4 ver = kExtVersion;
  u4 suite = kSecureSuiteAes256Gcm;
  u8 resv8;
  u16 epoch;
  u32 spi;
  u64 pn;  // 1 to 2^63 - 1
  ByteArray<8> htag;

  void read(ByteReader& r) {
    const uint32_t w = r.u32();
    ver = w >> 28;
    suite = w >> 24;
    resv8 = w >> 16;
    epoch = w;
    spi = r.u32();
    pn = r.u64();
    r.copy_into(htag.bytes);
  }
  void write(ByteWriter& w) const {
    w.u8(static_cast<uint8_t>(ver << 4 | suite));
    w.u8(resv8);
    w.u16(epoch);
    w.u32(spi);
    w.u64(pn);
    w.bytes(htag.bytes);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("ver", s.ver);
    f("suite", s.suite);
    f("resv8", s.resv8);
    f("epoch", s.epoch);
    f("spi", s.spi);
    f("pn", s.pn);
    f("htag", s.htag);
  }
  friend bool operator==(const Sech&, const Sech&) = default;
};

// The packet tag of a secure packet; payload and pad before it are ciphertext.
struct SecTag {
  static constexpr std::string_view kName = "SecTag";
  static constexpr unsigned kSize = kSecTagSize;

  ByteArray<16> tag;

  void read(ByteReader& r) { r.copy_into(tag.bytes); }
  void write(ByteWriter& w) const { w.bytes(tag.bytes); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("tag", s.tag);
  }
  friend bool operator==(const SecTag&, const SecTag&) = default;
};

}  // namespace mr::wire
