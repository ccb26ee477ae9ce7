// File: fabric_address.h
//
// The fabric's addressing plan, explicit so that a test, a device or a report can name
// any endpoint's address on any plane. Each endpoint has one port per plane, and each
// port one IPv4 and one IPv6 address; the plane is part of the address, so a frame
// addressed to another plane's subnet is unroutable on this one, as in a real multi-plane
// fabric whose planes share nothing.
//
//   IPv4: ipv4_base + plane * 8192 + endpoint + 1   (198.18.0.0/15: 16 planes x 8191)
//         plane 0 endpoint 0 = 198.18.0.1, plane 1 endpoint 0 = 198.18.32.1
//   IPv6: ipv6_base with byte 7 = plane and bytes 12..15 = endpoint + 1
//         plane 2 endpoint 5 = fd00:0:0:2::6
//   MAC:  02:00:00:<plane>:<endpoint high>:<endpoint low> (locally administered)
//
// Or, with `shared` set, one address per endpoint that every plane routes (plane 0's above):
// a NIC whose ports all carry one IP, the plane chosen per packet by the sender (spec 20.1,
// an EV set entry's plane), as the reference Device's planes do.
//
// Usage:
//   FabricAddressing plan;
//   wire::Ipv4Address a = plan.ipv4(/*plane=*/1, /*endpoint=*/7);   // 198.18.32.8
//   std::optional<uint32_t> e = plan.endpoint_of(1, a);              // 7
#pragma once

#include <cstdint>
#include <optional>

#include "reference/wire/address.h"

namespace mr::io::fabric {

inline constexpr uint32_t kMaxPlanes = 16;          // MXH plane is 0-15 (spec 20.1)
inline constexpr uint32_t kIpv4PlaneStride = 8192;  // addresses per plane in the /15
inline constexpr uint32_t kMaxEndpoints = kIpv4PlaneStride - 2;

struct FabricAddressing {
  wire::Ipv4Address ipv4_base{{198, 18, 0, 0}};  // RFC 2544 benchmarking range, a /15
  wire::Ipv6Address ipv6_base{{0xfd}};           // fd00::/64 per plane (ULA)
  bool shared = false;  // every plane routes each endpoint's plane-0 addresses

  wire::Ipv4Address ipv4(uint32_t plane, uint32_t endpoint) const;
  wire::Ipv6Address ipv6(uint32_t plane, uint32_t endpoint) const;
  wire::MacAddress mac(uint32_t plane, uint32_t endpoint) const;

  // The endpoint an address names on `plane`, or nullopt when it is not one of the plane's
  // endpoint addresses (another plane, another subnet, or beyond `endpoints`).
  std::optional<uint32_t> endpoint_of(uint32_t plane, const wire::Ipv4Address& address,
                                      uint32_t endpoints = kMaxEndpoints) const;
  std::optional<uint32_t> endpoint_of(uint32_t plane, const wire::Ipv6Address& address,
                                      uint32_t endpoints = kMaxEndpoints) const;

  friend bool operator==(const FabricAddressing&, const FabricAddressing&) = default;
};

}  // namespace mr::io::fabric
