// File: ipv6.h
//
// IPv6 fixed header (40 bytes) with Scapy's IPv6 field names. RoCEv2 puts UDP directly
// after it (nh = 17); a packet with extension headers is not decoded as RoCE.
#pragma once

#include <string_view>

#include "reference/wire/address.h"
#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Ipv6 {
  static constexpr std::string_view kName = "IPv6";
  static constexpr unsigned kSize = 40;

  u4 version = 6;
  u8 tc;   // masked out of the ICRC
  u20 fl;  // masked out of the ICRC
  u16 plen;
  u8 nh = 17;
  u8 hlim = 64;  // masked out of the ICRC
  Ipv6Address src;
  Ipv6Address dst;

  void read(ByteReader& r);
  void write(ByteWriter& w) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("version", s.version);
    f("tc", s.tc);
    f("fl", s.fl);
    f("plen", s.plen);
    f("nh", s.nh);
    f("hlim", s.hlim);
    f("src", s.src);
    f("dst", s.dst);
  }
  friend bool operator==(const Ipv6&, const Ipv6&) = default;
};

}  // namespace mr::wire
