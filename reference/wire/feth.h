// File: feth.h
//
// Flush Extended Transport Header (IBTA 1.5 memory placement extensions), 4 bytes:
// resv(26) sel(2: selectivity) plt(4: placement type).
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Feth {
  static constexpr std::string_view kName = "FETH";
  static constexpr unsigned kSize = kFethSize;

  UInt<26> resv;
  u2 sel;
  u4 plt;

  void read(ByteReader& r) {
    const uint32_t v = r.u32();
    resv = v >> 6;
    sel = v >> 4;
    plt = v;
  }
  void write(ByteWriter& w) const { w.u32(uint32_t{resv} << 6 | uint32_t{sel} << 4 | plt); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("resv", s.resv);
    f("sel", s.sel);
    f("plt", s.plt);
  }
  friend bool operator==(const Feth&, const Feth&) = default;
};

}  // namespace mr::wire
