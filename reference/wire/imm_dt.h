// File: imm_dt.h
//
// Immediate Data Extended Transport Header (IBTA 9.3.8), 4 bytes: imm(32), delivered to
// the receiver's completion as-is.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct ImmDt {
  static constexpr std::string_view kName = "ImmDt";
  static constexpr unsigned kSize = kImmDtSize;

  u32 imm;

  void read(ByteReader& r) { imm = r.u32(); }
  void write(ByteWriter& w) const { w.u32(imm); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("imm", s.imm);
  }
  friend bool operator==(const ImmDt&, const ImmDt&) = default;
};

}  // namespace mr::wire
