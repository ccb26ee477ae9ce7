#include "reference/wire/address.h"

#include <arpa/inet.h>

#include <cstdio>

namespace mr::wire {

std::string MacAddress::to_string() const {
  char buf[18];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", bytes[0], bytes[1], bytes[2],
                bytes[3], bytes[4], bytes[5]);
  return buf;
}

std::optional<MacAddress> MacAddress::parse(std::string_view text) {
  if (text.size() != 17) return std::nullopt;
  MacAddress m;
  for (size_t i = 0; i < 6; ++i) {
    unsigned v = 0;
    for (size_t j = 0; j < 2; ++j) {
      const char c = text[i * 3 + j];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        return std::nullopt;
      }
    }
    if (i < 5 && text[i * 3 + 2] != ':') return std::nullopt;
    m.bytes[i] = static_cast<uint8_t>(v);
  }
  return m;
}

std::string Ipv4Address::to_string() const {
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<Ipv4Address> Ipv4Address::parse(std::string_view text) {
  Ipv4Address a;
  const std::string s(text);
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
  return a;
}

std::string Ipv6Address::to_string() const {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<Ipv6Address> Ipv6Address::parse(std::string_view text) {
  Ipv6Address a;
  const std::string s(text);
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
  return a;
}

}  // namespace mr::wire
