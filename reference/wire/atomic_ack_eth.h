// File: atomic_ack_eth.h
//
// Atomic Acknowledge Extended Transport Header (IBTA 9.3.7), 8 bytes: orig(64), the value
// the target held before the atomic operation.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct AtomicAckEth {
  static constexpr std::string_view kName = "AtomicAckETH";
  static constexpr unsigned kSize = kAtomicAckEthSize;

  u64 orig;

  void read(ByteReader& r) { orig = r.u64(); }
  void write(ByteWriter& w) const { w.u64(orig); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("orig", s.orig);
  }
  friend bool operator==(const AtomicAckEth&, const AtomicAckEth&) = default;
};

}  // namespace mr::wire
