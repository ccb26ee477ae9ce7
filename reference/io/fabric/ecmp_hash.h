// File: ecmp_hash.h
//
// Equal-cost multipath as a switch does it: a seeded hash of the frame's flow fields picks
// one of n next hops. IPv4 hashes (src, dst, UDP sport, UDP dport); IPv6 hashes (src, dst,
// flow label), or its ports like IPv4 (Ipv6EcmpKey). So the entropy value a MetaRoCE sender
// puts in the UDP source port or flow label (spec 20.2) picks the path, and each switch's
// own seed decorrelates the choices of successive tiers, as in a real fabric.
//
// Usage:
//   FlowKey key = flow_key(headers, Ipv6EcmpKey::kFlowLabel);
//   uint32_t uplink = ecmp_pick(ecmp_hash(key, switch_seed), spines);
#pragma once

#include <array>
#include <cstdint>

#include "reference/io/fabric/fabric_config.h"
#include "reference/io/fabric/frame_headers.h"

namespace mr::io::fabric {

struct FlowKey {
  std::array<uint8_t, 16> src{};  // IPv4 in the first four bytes
  std::array<uint8_t, 16> dst{};
  uint32_t entropy = 0;  // sport << 16 | dport, or the flow label
  friend bool operator==(const FlowKey&, const FlowKey&) = default;
};

FlowKey flow_key(const FrameHeaders& h, Ipv6EcmpKey ipv6_key);
uint64_t ecmp_hash(const FlowKey& key, uint64_t seed);
// Which of n (> 0) next hops the hash selects.
inline uint32_t ecmp_pick(uint64_t hash, uint32_t n) {
  return static_cast<uint32_t>((static_cast<unsigned __int128>(hash) * n) >> 64);
}

}  // namespace mr::io::fabric
