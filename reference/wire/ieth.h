// File: ieth.h
//
// Invalidate Extended Transport Header (IBTA 9.3.9), 4 bytes: rkey(32), the R_Key the
// responder invalidates after a SEND WITH INVALIDATE.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Ieth {
  static constexpr std::string_view kName = "IETH";
  static constexpr unsigned kSize = kIethSize;

  u32 rkey;

  void read(ByteReader& r) { rkey = r.u32(); }
  void write(ByteWriter& w) const { w.u32(rkey); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("rkey", s.rkey);
  }
  friend bool operator==(const Ieth&, const Ieth&) = default;
};

}  // namespace mr::wire
