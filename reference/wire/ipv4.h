// File: ipv4.h
//
// IPv4 header with Scapy's IP field names. RoCEv2 senders use IHL 5; options are kept
// (not interpreted) so that any captured header round-trips byte for byte.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/address.h"
#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/parse_error.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

inline constexpr uint8_t kIpProtoUdp = 17;

struct Ipv4 {
  static constexpr std::string_view kName = "IP";
  static constexpr unsigned kMinSize = 20;

  u4 version = 4;
  u4 ihl = 5;
  u8 tos;  // DSCP(6) + ECN(2); masked out of the ICRC
  u16 len;
  u16 id;
  u3 flags;  // bit 1 = DF
  u13 frag;
  u8 ttl = 64;
  u8 proto = kIpProtoUdp;
  u16 chksum;
  Ipv4Address src;
  Ipv4Address dst;
  std::vector<uint8_t> options;  // (ihl - 5) * 4 bytes

  unsigned header_size() const { return ihl * 4U; }
  static Expected<Ipv4, ParseError> parse(ByteReader& r);
  // Parses into `ip`, reusing its storage (the streaming decoder's form).
  static Expected<void, ParseError> parse_into(ByteReader& r, Ipv4& ip);
  void write(ByteWriter& w) const;
  // RFC 791 header checksum over the header as it would be written, chksum taken as 0.
  uint16_t compute_checksum() const;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("version", s.version);
    f("ihl", s.ihl);
    f("tos", s.tos);
    f("len", s.len);
    f("id", s.id);
    f("flags", s.flags);
    f("frag", s.frag);
    f("ttl", s.ttl);
    f("proto", s.proto);
    f("chksum", s.chksum);
    f("src", s.src);
    f("dst", s.dst);
  }
  friend bool operator==(const Ipv4&, const Ipv4&) = default;
};

}  // namespace mr::wire
