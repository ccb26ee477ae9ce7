// File: aeth.h
//
// ACK Extended Transport Header (IBTA 9.3.5), 4 bytes: syndrome(8) msn(24).
// Syndrome: bits 6:5 are the type (00 ACK, 01 RNR NAK, 11 NAK), bits 4:0 the value; its
// names and tests are in aeth_syndrome.h.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Aeth {
  static constexpr std::string_view kName = "AETH";
  static constexpr unsigned kSize = kAethSize;

  u8 syndrome;
  u24 msn;

  void read(ByteReader& r) {
    const uint32_t w = r.u32();  // one read: a byte-wide store first would reload the cursor
    syndrome = w >> 24;
    msn = w;
  }
  void write(ByteWriter& w) const {
    w.u8(syndrome);
    w.u24(msn);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("syndrome", s.syndrome);
    f("msn", s.msn);
  }
  friend bool operator==(const Aeth&, const Aeth&) = default;
};

}  // namespace mr::wire
