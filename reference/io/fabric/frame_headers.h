// File: frame_headers.h
//
// What a switch reads from a frame to forward it: where the IP header starts, the
// addresses, the UDP ports or IPv6 flow label that ECMP hashes, and the traffic class
// (DSCP and ECN). Parsed once when a frame enters the fabric, with the codec's header
// readers and bounds checks: frames are hostile, and one the fabric cannot read is
// unroutable, never a crash. Only the traffic-class and length fields change in flight
// (ECN marking, trimming), and those are read back from the bytes.
//
// Usage:
//   if (auto h = parse_frame_headers(frame.bytes)) route(h->dst_v4, hash(flow_key(*h)));
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "reference/wire/address.h"

namespace mr::io::fabric {

struct FrameHeaders {
  size_t l3_offset = 0;        // 14, or 18 behind one 802.1Q tag
  size_t ip_header_bytes = 0;  // IHL * 4, or 40
  bool ipv6 = false;
  wire::Ipv4Address src_v4;
  wire::Ipv4Address dst_v4;
  wire::Ipv6Address src_v6;
  wire::Ipv6Address dst_v6;
  uint32_t flow_label = 0;  // IPv6 only
  bool udp = false;         // the UDP header is present in full
  uint16_t sport = 0;
  uint16_t dport = 0;
};

// Ethernet, at most one VLAN tag, IPv4 (IHL >= 5) or IPv6, then UDP if the protocol says so
// and its 8 bytes are there. Nullopt for anything else (ARP, truncated, garbage).
std::optional<FrameHeaders> parse_frame_headers(std::span<const uint8_t> frame);

// The traffic class octet (IPv4 TOS, IPv6 TC) of a frame parse_frame_headers accepted.
uint8_t traffic_class(std::span<const uint8_t> frame, const FrameHeaders& h);
// Rewrites the DSCP (the upper six bits), keeping the ECN bits.
void set_dscp(std::span<uint8_t> frame, const FrameHeaders& h, uint8_t dscp);

// ECN field values (RFC 3168).
inline constexpr uint8_t kEcnNotEct = 0;
inline constexpr uint8_t kEcnCe = 3;

}  // namespace mr::io::fabric
