// File: ip_frame.h
//
// The L2/L3 envelope of a frame the Node handles (ARP aside): Ethernet, an optional
// 802.1Q tag, IPv4 or IPv6, and the bytes the IP header says it carries (Ethernet padding
// after them is cut off). Building goes the other way, filling lengths and the IPv4
// header checksum. Headers are the codec's value types; this file adds no wire format.
//
// Usage:
//   auto ip = parse_ip_frame(frame);
//   if (ip && ip->protocol() == kIpProtoIcmpv6) handle(ip->payload);
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/ether.h"
#include "reference/wire/ipv4.h"
#include "reference/wire/ipv6.h"
#include "reference/wire/parse_error.h"

namespace mr::io {

inline constexpr uint8_t kIpProtoIcmp = 1;
inline constexpr uint8_t kIpProtoIcmpv6 = 58;

struct IpFrame {
  wire::Ether eth;
  std::optional<wire::Dot1Q> vlan;
  std::variant<wire::Ipv4, wire::Ipv6> ip;
  std::span<const uint8_t> payload;  // what follows the IP header, as long as IP says
  // The frame held fewer bytes than the IP header says: the payload is what there was. Only
  // RoCE takes such a frame (a trimmed packet, judged by its receiver: spec section 23).
  bool cut = false;

  bool is_ipv6() const { return std::holds_alternative<wire::Ipv6>(ip); }
  uint8_t protocol() const;  // IPv4 proto or IPv6 next header
};

// Ethertypes other than IPv4/IPv6 (after at most one VLAN tag) are not an error: they
// give nullopt. Truncated or inconsistent headers are.
Expected<std::optional<IpFrame>, wire::ParseError> parse_ip_frame(std::span<const uint8_t> frame);

// Ether / IP(proto, ttl, fresh checksum) / payload.
std::vector<uint8_t> build_ipv4_frame(const wire::MacAddress& src_mac,
                                      const wire::MacAddress& dst_mac, const wire::Ipv4Address& src,
                                      const wire::Ipv4Address& dst, uint8_t protocol,
                                      std::span<const uint8_t> payload, uint8_t ttl = 64);
// Ether / IPv6(nh, hlim) / payload.
std::vector<uint8_t> build_ipv6_frame(const wire::MacAddress& src_mac,
                                      const wire::MacAddress& dst_mac, const wire::Ipv6Address& src,
                                      const wire::Ipv6Address& dst, uint8_t next_header,
                                      std::span<const uint8_t> payload, uint8_t hop_limit = 64);

}  // namespace mr::io
