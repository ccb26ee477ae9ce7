// File: internet_checksum.h
//
// The Internet checksum (RFC 1071) for ICMP, and for ICMPv6 with the IPv6 pseudo-header
// (RFC 8200 section 8.1). The kernel on the far side of a veth drops an ICMPv6 message
// whose checksum is wrong, so neighbour discovery works only if this is exact.
#pragma once

#include <cstdint>
#include <span>

#include "reference/wire/address.h"

namespace mr::io {

// Adds big-endian 16-bit words to a running sum; an odd final byte is padded with zero.
// Only the last chunk given to a running sum may have odd length.
uint32_t checksum_add(uint32_t sum, std::span<const uint8_t> bytes);
// Folds the carries and complements: the value to write into the checksum field.
uint16_t checksum_finish(uint32_t sum);

inline uint16_t internet_checksum(std::span<const uint8_t> bytes) {
  return checksum_finish(checksum_add(0, bytes));
}

// Checksum of an upper-layer message (its checksum field zero) carried over IPv6.
uint16_t ipv6_upper_layer_checksum(const wire::Ipv6Address& src, const wire::Ipv6Address& dst,
                                   uint8_t next_header, std::span<const uint8_t> message);

}  // namespace mr::io
