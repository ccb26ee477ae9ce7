// File: address.h
//
// Link and network addresses as small value types, printed the way Scapy and tshark print
// them ("02:00:00:00:00:01", "198.18.0.1", "fe80::1").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mr::wire {

struct MacAddress {
  std::array<uint8_t, 6> bytes{};
  std::string to_string() const;
  static std::optional<MacAddress> parse(std::string_view text);
  friend bool operator==(const MacAddress&, const MacAddress&) = default;
};

struct Ipv4Address {
  std::array<uint8_t, 4> bytes{};
  std::string to_string() const;
  static std::optional<Ipv4Address> parse(std::string_view text);
  friend bool operator==(const Ipv4Address&, const Ipv4Address&) = default;
};

struct Ipv6Address {
  std::array<uint8_t, 16> bytes{};
  std::string to_string() const;
  static std::optional<Ipv6Address> parse(std::string_view text);
  friend bool operator==(const Ipv6Address&, const Ipv6Address&) = default;
};

}  // namespace mr::wire
