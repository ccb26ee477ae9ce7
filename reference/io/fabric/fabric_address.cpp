#include "reference/io/fabric/fabric_address.h"

#include <algorithm>

namespace mr::io::fabric {
namespace {

uint32_t ipv4_value(const wire::Ipv4Address& a) {
  return uint32_t{a.bytes[0]} << 24 | uint32_t{a.bytes[1]} << 16 | uint32_t{a.bytes[2]} << 8 |
         a.bytes[3];
}

}  // namespace

wire::Ipv4Address FabricAddressing::ipv4(uint32_t plane, uint32_t endpoint) const {
  if (shared) plane = 0;
  const uint32_t v = ipv4_value(ipv4_base) + plane * kIpv4PlaneStride + endpoint + 1;
  return {{static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16),
           static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)}};
}

wire::Ipv6Address FabricAddressing::ipv6(uint32_t plane, uint32_t endpoint) const {
  if (shared) plane = 0;
  wire::Ipv6Address a = ipv6_base;
  a.bytes[7] = static_cast<uint8_t>(plane);
  const uint32_t host = endpoint + 1;
  a.bytes[12] = static_cast<uint8_t>(host >> 24);
  a.bytes[13] = static_cast<uint8_t>(host >> 16);
  a.bytes[14] = static_cast<uint8_t>(host >> 8);
  a.bytes[15] = static_cast<uint8_t>(host);
  return a;
}

wire::MacAddress FabricAddressing::mac(uint32_t plane, uint32_t endpoint) const {
  if (shared) plane = 0;
  return {{0x02, 0x00, 0x00, static_cast<uint8_t>(plane), static_cast<uint8_t>(endpoint >> 8),
           static_cast<uint8_t>(endpoint)}};
}

std::optional<uint32_t> FabricAddressing::endpoint_of(uint32_t plane,
                                                      const wire::Ipv4Address& address,
                                                      uint32_t endpoints) const {
  if (shared) plane = 0;
  const uint32_t first = ipv4_value(ipv4_base) + plane * kIpv4PlaneStride + 1;
  const uint32_t v = ipv4_value(address);
  if (v < first) return std::nullopt;
  const uint32_t endpoint = v - first;
  if (endpoint >= std::min(endpoints, kMaxEndpoints)) return std::nullopt;
  return endpoint;
}

std::optional<uint32_t> FabricAddressing::endpoint_of(uint32_t plane,
                                                      const wire::Ipv6Address& address,
                                                      uint32_t endpoints) const {
  if (shared) plane = 0;
  for (size_t i = 0; i < 12; ++i) {
    const uint8_t want = i == 7 ? static_cast<uint8_t>(plane) : ipv6_base.bytes[i];
    if (address.bytes[i] != want) return std::nullopt;
  }
  const uint32_t host = uint32_t{address.bytes[12]} << 24 | uint32_t{address.bytes[13]} << 16 |
                        uint32_t{address.bytes[14]} << 8 | address.bytes[15];
  if (host == 0 || host - 1 >= std::min(endpoints, kMaxEndpoints)) return std::nullopt;
  return host - 1;
}

}  // namespace mr::io::fabric
