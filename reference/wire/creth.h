// File: creth.h
//
// Credit Extended Transport Header (spec section 26.8), 4 bytes, alone after the BTH of a
// CREDIT packet (opcode 0x19): ver(4) resv4(4) resv8(8) credit(16), the receiver's credit
// limit in units of 256 bytes modulo 2^16.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/opcode.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Creth {
  static constexpr std::string_view kName = "CRETH";
  static constexpr unsigned kSize = kCrethSize;

  u4 ver = kExtVersion;
  u4 resv4;
  u8 resv8;
  u16 credit;

  void read(ByteReader& r) {
    const uint32_t w = r.u32();
    ver = w >> 28;
    resv4 = w >> 24;
    resv8 = w >> 16;
    credit = w;
  }
  void write(ByteWriter& w) const {
    w.u8(static_cast<uint8_t>(ver << 4 | resv4));
    w.u8(resv8);
    w.u16(credit);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("ver", s.ver);
    f("resv4", s.resv4);
    f("resv8", s.resv8);
    f("credit", s.credit);
  }
  friend bool operator==(const Creth&, const Creth&) = default;
};

}  // namespace mr::wire
