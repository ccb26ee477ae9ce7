// File: rsyneth.h
//
// RESYNC Extended Transport Header (spec section 22.3), 4 bytes, after the MXH of a RESYNC
// (opcode 0x1A): code(8) end(1) resv7(7) count(16). The requester gives up `count` PSNs
// from the BTH PSN; `end` says the range ends its message. Codes: 1 OP_ERROR, 2 ABORT,
// 3 RESOURCE (values of a field, not reserved bits: MR-EX-13).
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Rsyneth {
  static constexpr std::string_view kName = "RSYNETH";
  static constexpr unsigned kSize = kRsynethSize;

  u8 code = 1;
  u1 end;
  u7 resv7;
  u16 count = 1;

  void read(ByteReader& r) {
    const uint32_t w = r.u32();
    code = w >> 24;
    end = w >> 23;
    resv7 = w >> 16;
    count = w;
  }
  void write(ByteWriter& w) const {
    w.u8(code);
    w.u8(static_cast<uint8_t>(end << 7 | resv7));
    w.u16(count);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("code", s.code);
    f("end", s.end);
    f("resv7", s.resv7);
    f("count", s.count);
  }
  friend bool operator==(const Rsyneth&, const Rsyneth&) = default;
};

}  // namespace mr::wire
