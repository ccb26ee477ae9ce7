// File: icmp_echo.h
//
// ICMP and ICMPv6 echo (ping): what a Node answers so that `ping` from a peer works, and
// what it sends to check a path before RoCE traffic starts. Scapy's names: ICMP(type,
// code, chksum, id, seq) and ICMPv6EchoRequest/Reply(id, seq, data).
//
// Usage:
//   auto echo = parse_icmp_echo(ip_frame);    // checksum verified
//   if (echo && echo->is_request) node.send(build_icmp_echo_reply(ip_frame, *echo));
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "reference/io/ip_frame.h"

namespace mr::io {

inline constexpr uint8_t kIcmpEchoReply = 0;
inline constexpr uint8_t kIcmpEchoRequest = 8;
inline constexpr uint8_t kIcmpv6EchoRequest = 128;
inline constexpr uint8_t kIcmpv6EchoReply = 129;

struct IcmpEcho {
  bool is_request = true;
  uint16_t id = 0;
  uint16_t seq = 0;
  std::span<const uint8_t> data;  // borrowed from the frame or the caller
};

// nullopt unless the frame carries an ICMP(v6) echo request or reply with a correct
// checksum and code 0.
std::optional<IcmpEcho> parse_icmp_echo(const IpFrame& frame);

// An echo over IPv4 or IPv6 between the given endpoints.
std::vector<uint8_t> build_icmp_echo_frame(const wire::MacAddress& src_mac,
                                           const wire::MacAddress& dst_mac,
                                           const wire::Ipv4Address& src,
                                           const wire::Ipv4Address& dst, const IcmpEcho& echo);
std::vector<uint8_t> build_icmp_echo_frame(const wire::MacAddress& src_mac,
                                           const wire::MacAddress& dst_mac,
                                           const wire::Ipv6Address& src,
                                           const wire::Ipv6Address& dst, const IcmpEcho& echo);

// The reply to `request` (a parsed echo request inside `frame`), from the addressee (own
// MAC, the request's destination IP) back to the sender, with the same id, seq and data.
std::vector<uint8_t> build_icmp_echo_reply(const IpFrame& frame, const IcmpEcho& request,
                                           const wire::MacAddress& own_mac);

}  // namespace mr::io
