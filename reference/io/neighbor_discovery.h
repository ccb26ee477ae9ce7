// File: neighbor_discovery.h
//
// IPv6 neighbour discovery (RFC 4861): the Neighbor Solicitation and Advertisement
// messages a Node needs to resolve and to be resolved, as value types with Scapy's names
// (ICMPv6ND_NS tgt, ICMPv6ND_NA R S O tgt, ICMPv6NDOptSrcLLAddr / DstLLAddr lladdr), and
// the solicited-node multicast addressing they travel on.
//
// Parsing applies RFC 4861 section 7.1 validation: hop limit 255 (proof the sender is on
// the link), correct ICMPv6 checksum, code 0, length, target not multicast, no
// zero-length option. Building always produces messages that pass it.
//
// Usage:
//   auto ns = build_neighbor_solicitation_frame(my_mac, my_link_local, peer_ip);
//   auto msg = parse_neighbor_discovery(ipv6_header, icmpv6_bytes);
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/address.h"
#include "reference/wire/ipv6.h"

namespace mr::io {

inline constexpr uint8_t kIcmpv6NeighborSolicitation = 135;
inline constexpr uint8_t kIcmpv6NeighborAdvertisement = 136;
inline constexpr uint8_t kNeighborDiscoveryHopLimit = 255;

struct NeighborSolicitation {
  wire::Ipv6Address tgt;
  std::optional<wire::MacAddress> src_lladdr;  // absent in duplicate address detection
  friend bool operator==(const NeighborSolicitation&, const NeighborSolicitation&) = default;
};

struct NeighborAdvertisement {
  bool R = false;  // NOLINT(readability-identifier-naming): Scapy's flag names
  bool S = false;  // solicited: an answer to a solicitation
  bool O = true;   // override the cached link-layer address
  wire::Ipv6Address tgt;
  std::optional<wire::MacAddress> dst_lladdr;  // the target's link-layer address
  friend bool operator==(const NeighborAdvertisement&, const NeighborAdvertisement&) = default;
};

using NeighborMessage = std::variant<NeighborSolicitation, NeighborAdvertisement>;

// ff02::1:ffXX:XXXX from the low 24 bits of `address`.
wire::Ipv6Address solicited_node_multicast(const wire::Ipv6Address& address);
// 33:33 followed by the low 32 bits of a multicast IPv6 address (RFC 2464 section 7).
wire::MacAddress ipv6_multicast_mac(const wire::Ipv6Address& multicast);
inline bool is_multicast(const wire::Ipv6Address& a) { return a.bytes[0] == 0xff; }
inline bool is_unspecified(const wire::Ipv6Address& a) { return a == wire::Ipv6Address{}; }

// `icmp` is the ICMPv6 message after the IPv6 header `ip`. nullopt: an ICMPv6 message
// that is not NS or NA. An error: an NS or NA that fails validation, with the reason.
Expected<std::optional<NeighborMessage>, std::string> parse_neighbor_discovery(
    const wire::Ipv6& ip, std::span<const uint8_t> icmp);

// To the target's solicited-node multicast group, with our link-layer address option.
std::vector<uint8_t> build_neighbor_solicitation_frame(const wire::MacAddress& src_mac,
                                                       const wire::Ipv6Address& src,
                                                       const wire::Ipv6Address& target);
std::vector<uint8_t> build_neighbor_advertisement_frame(const wire::MacAddress& src_mac,
                                                        const wire::Ipv6Address& src,
                                                        const wire::MacAddress& dst_mac,
                                                        const wire::Ipv6Address& dst,
                                                        const NeighborAdvertisement& advert);

}  // namespace mr::io
