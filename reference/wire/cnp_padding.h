// File: cnp_padding.h
//
// The 16 reserved bytes that follow the BTH of a RoCEv2 CNP (Annex A17), named as in
// Scapy's CNPPadding: reserved1(64) reserved2(64).
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct CnpPadding {
  static constexpr std::string_view kName = "CNPPadding";
  static constexpr unsigned kSize = kCnpPaddingSize;

  u64 reserved1;
  u64 reserved2;

  void read(ByteReader& r) {
    reserved1 = r.u64();
    reserved2 = r.u64();
  }
  void write(ByteWriter& w) const {
    w.u64(reserved1);
    w.u64(reserved2);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("reserved1", s.reserved1);
    f("reserved2", s.reserved2);
  }
  friend bool operator==(const CnpPadding&, const CnpPadding&) = default;
};

}  // namespace mr::wire
