// File: deth.h
//
// Datagram Extended Transport Header (IBTA 9.3.2), 8 bytes: qkey(32) resv8(8) sqpn(24).
// Follows the BTH of every UD (and RD) packet.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Deth {
  static constexpr std::string_view kName = "DETH";
  static constexpr unsigned kSize = kDethSize;

  u32 qkey;
  u8 resv8;
  u24 sqpn;

  void read(ByteReader& r) {
    qkey = r.u32();
    resv8 = r.u8();
    sqpn = r.u24();
  }
  void write(ByteWriter& w) const {
    w.u32(qkey);
    w.u8(resv8);
    w.u24(sqpn);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("qkey", s.qkey);
    f("resv8", s.resv8);
    f("sqpn", s.sqpn);
  }
  friend bool operator==(const Deth&, const Deth&) = default;
};

}  // namespace mr::wire
