// File: atomic_eth.h
//
// Atomic Extended Transport Header (IBTA 9.3.6), 28 bytes:
// va(64) rkey(32) swap(64: swap or add data) comp(64: compare data).
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct AtomicEth {
  static constexpr std::string_view kName = "AtomicETH";
  static constexpr unsigned kSize = kAtomicEthSize;

  u64 va;
  u32 rkey;
  u64 swap;
  u64 comp;

  void read(ByteReader& r) {
    va = r.u64();
    rkey = r.u32();
    swap = r.u64();
    comp = r.u64();
  }
  void write(ByteWriter& w) const {
    w.u64(va);
    w.u32(rkey);
    w.u64(swap);
    w.u64(comp);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("va", s.va);
    f("rkey", s.rkey);
    f("swap", s.swap);
    f("comp", s.comp);
  }
  friend bool operator==(const AtomicEth&, const AtomicEth&) = default;
};

}  // namespace mr::wire
