// File: address_vector.h
//
// Where a QP's packets go and how they are framed: the RoCEv2 address vector (source and
// destination GID as IP addresses, MACs, traffic class, hop limit, UDP source port, VLAN).
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "reference/wire/address.h"

namespace mr::transport {

using IpAddress = std::variant<wire::Ipv4Address, wire::Ipv6Address>;

struct AddressVector {
  wire::MacAddress smac;
  wire::MacAddress dmac;
  IpAddress sip = wire::Ipv4Address{};
  IpAddress dip = wire::Ipv4Address{};
  uint8_t traffic_class = 0;  // DSCP + ECN, as the AV's grh.traffic_class
  uint8_t hop_limit = 64;
  uint32_t flow_label = 0;
  uint16_t udp_sport = 0xc000;  // flow entropy, fixed for the connection (MR-WF-08)
  std::optional<uint16_t> vlan_id;
  uint8_t vlan_prio = 0;
};

}  // namespace mr::transport
