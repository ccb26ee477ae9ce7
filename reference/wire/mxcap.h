// File: mxcap.h
//
// The MetaRoCE capability block (spec section 18), 16 bytes: the first 16 bytes of the RDMA
// CM REQ and REP private data, or the `ext_peer_cap` a management plane hands a QP. Not a
// packet header: it travels in CM private data, so it is read from a span of its own.
// Field names are the Scapy layer's (MXCAP in tools/scapy/metaroce.py):
//   bytes 0-3   magic      "MRX1"
//   byte 4      version    1
//   byte 5      features   SACK OOO MULTIPATH TRIM PATHPROBE CC ADAPTIVE CREDIT (bit 0 first)
//   byte 6      ev_mode    0 UDP, 1 FLOW
//   byte 7      mpr        initial receive window, units of 128 PSNs
//   byte 8      planes
//   byte 9      features2  NONFATAL RESYNC SECURE (bits 7:3 reserved)
//   bytes 10-11 ev_count
//   bytes 12-15 reserved
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/byte_array.h"
#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/parse_error.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

enum MxcapFeature : uint8_t {
  kMxcapSack = 1 << 0,
  kMxcapOoo = 1 << 1,
  kMxcapMultipath = 1 << 2,
  kMxcapTrim = 1 << 3,
  kMxcapPathProbe = 1 << 4,
  kMxcapCc = 1 << 5,
  kMxcapAdaptive = 1 << 6,
  kMxcapCredit = 1 << 7,
};
enum MxcapFeature2 : uint8_t {
  kMxcapNonFatal = 1 << 0,
  kMxcapResync = 1 << 1,
  kMxcapSecure = 1 << 2,
  kMxcapFeatures2Reserved = 0xf8,
};

struct Mxcap {
  static constexpr std::string_view kName = "MXCAP";
  static constexpr unsigned kSize = 16;
  static constexpr ByteArray<4> kMagic{{'M', 'R', 'X', '1'}};

  ByteArray<4> magic = kMagic;
  u8 version = 1;
  u8 features = kMxcapSack | kMxcapOoo;  // the mandatory core of Ext
  u8 ev_mode;
  u8 mpr = 8;
  u8 planes = 1;
  u8 features2;
  u16 ev_count = 1;
  u32 reserved;

  // The block at the start of `bytes` (CM private data may be longer): an error names
  // MXCAP and the offset when fewer than 16 bytes are given. Any values are read: whether
  // they allow Ext is enables_ext()'s question, not the parser's.
  static Expected<Mxcap, ParseError> parse(std::span<const uint8_t> bytes);
  std::vector<uint8_t> bytes() const;
  // Whether this block alone allows extension mode (MR-EX-01): the magic, version 1, and
  // the SACK and OOO bits.
  bool enables_ext() const;

  void read(ByteReader& r);
  void write(ByteWriter& w) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("magic", s.magic);
    f("version", s.version);
    f("features", s.features);
    f("ev_mode", s.ev_mode);
    f("mpr", s.mpr);
    f("planes", s.planes);
    f("features2", s.features2);
    f("ev_count", s.ev_count);
    f("reserved", s.reserved);
  }
  friend bool operator==(const Mxcap&, const Mxcap&) = default;
};

}  // namespace mr::wire
