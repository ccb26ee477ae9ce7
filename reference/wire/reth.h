// File: reth.h
//
// RDMA Extended Transport Header (IBTA 9.3.3), 16 bytes: va(64) rkey(32) dlen(32).
// Follows the BTH of RDMA WRITE FIRST/ONLY, READ REQUEST, FLUSH and ATOMIC WRITE.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Reth {
  static constexpr std::string_view kName = "RETH";
  static constexpr unsigned kSize = kRethSize;

  u64 va;
  u32 rkey;
  u32 dlen;

  void read(ByteReader& r) {
    va = r.u64();
    rkey = r.u32();
    dlen = r.u32();
  }
  void write(ByteWriter& w) const {
    w.u64(va);
    w.u32(rkey);
    w.u32(dlen);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("va", s.va);
    f("rkey", s.rkey);
    f("dlen", s.dlen);
  }
  friend bool operator==(const Reth&, const Reth&) = default;
};

}  // namespace mr::wire
