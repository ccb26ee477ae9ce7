// File: ecn.h
//
// The ECN field (RFC 3168) of a RoCEv2 packet: the low two bits of the IPv4 TOS or the IPv6
// traffic class. A receiver reads it to answer CE marks (DCQCN's CNPs, Part II's CE counts).
// And the DSCP, the byte's other six bits, where a trimming switch leaves its mark (spec
// section 23).
//
//   if (ecn_of(packet) == kEcnCe) notify_congestion(...);
#pragma once

#include <cstdint>
#include <variant>

#include "reference/wire/roce_packet.h"

namespace mr::wire {

inline constexpr uint8_t kEcnCe = 3;  // congestion experienced

inline uint8_t ecn_of(const RocePacket& p) {
  if (const auto* v4 = std::get_if<Ipv4>(&p.ip)) return v4->tos & 3;
  return std::get<Ipv6>(p.ip).tc & 3;
}

inline uint8_t dscp_of(const RocePacket& p) {
  if (const auto* v4 = std::get_if<Ipv4>(&p.ip)) return v4->tos >> 2;
  return std::get<Ipv6>(p.ip).tc >> 2;
}

}  // namespace mr::wire
