// File: rdeth.h
//
// Reliable Datagram Extended Transport Header (IBTA 9.3.1), 4 bytes: resv8(8) eec(24).
// Decoded so that RD traffic in a capture is shown, not rejected; no RD transport exists.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Rdeth {
  static constexpr std::string_view kName = "RDETH";
  static constexpr unsigned kSize = kRdethSize;

  u8 resv8;
  u24 eec;

  void read(ByteReader& r) {
    resv8 = r.u8();
    eec = r.u24();
  }
  void write(ByteWriter& w) const {
    w.u8(resv8);
    w.u24(eec);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("resv8", s.resv8);
    f("eec", s.eec);
  }
  friend bool operator==(const Rdeth&, const Rdeth&) = default;
};

}  // namespace mr::wire
