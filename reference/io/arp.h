// File: arp.h
//
// ARP for IPv4 over Ethernet (RFC 826) as a value type with Scapy's ARP field names
// (hwtype ptype hwlen plen op hwsrc psrc hwdst pdst), and the frames a Node sends.
// Frames are zero-padded to the 60-byte Ethernet minimum, as Linux sends them.
//
// Usage:
//   auto frame = build_arp_frame(Arp::request(my_mac, my_ip, peer_ip));
//   if (auto arp = Arp::parse(frame); arp && arp->op == Arp::kReply) learn(arp->psrc, arp->hwsrc);
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "reference/wire/address.h"
#include "reference/wire/byte_writer.h"

namespace mr::io {

inline constexpr uint16_t kEtherTypeArp = 0x0806;
inline constexpr size_t kMinEthernetFrame = 60;  // without the FCS

struct Arp {
  static constexpr uint16_t kRequest = 1;
  static constexpr uint16_t kReply = 2;
  static constexpr size_t kSize = 28;

  uint16_t hwtype = 1;  // Ethernet
  uint16_t ptype = 0x0800;
  uint8_t hwlen = 6;
  uint8_t plen = 4;
  uint16_t op = kRequest;
  wire::MacAddress hwsrc;
  wire::Ipv4Address psrc;
  wire::MacAddress hwdst;  // zero in a request
  wire::Ipv4Address pdst;

  static Arp request(const wire::MacAddress& own_mac, const wire::Ipv4Address& own_ip,
                     const wire::Ipv4Address& wanted);
  // The answer to `request` from the owner of request.pdst.
  static Arp reply_to(const Arp& request, const wire::MacAddress& own_mac);

  // The ARP inside an Ethernet frame; nullopt unless it is Ethernet/IPv4 ARP, untagged
  // and complete.
  static std::optional<Arp> parse(std::span<const uint8_t> frame);
  void write(wire::ByteWriter& w) const;
  friend bool operator==(const Arp&, const Arp&) = default;
};

// Ether(dst = broadcast for a request, hwdst for a reply; src = hwsrc) / ARP / padding.
std::vector<uint8_t> build_arp_frame(const Arp& arp);

}  // namespace mr::io
