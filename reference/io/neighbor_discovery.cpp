#include "reference/io/neighbor_discovery.h"

#include <algorithm>

#include "reference/io/internet_checksum.h"
#include "reference/io/ip_frame.h"
#include "reference/wire/byte_writer.h"

namespace mr::io {
namespace {

constexpr size_t kFixedSize = 24;  // type code cksum flags/reserved target
constexpr uint8_t kOptionSourceLinkLayer = 1;
constexpr uint8_t kOptionTargetLinkLayer = 2;
constexpr uint8_t kFlagRouter = 0x80;
constexpr uint8_t kFlagSolicited = 0x40;
constexpr uint8_t kFlagOverride = 0x20;

// The checksum field (bytes 2 and 3) is filled once the message is complete.
void fill_checksum(const wire::Ipv6Address& src, const wire::Ipv6Address& dst,
                   std::vector<uint8_t>& message) {
  const uint16_t sum = ipv6_upper_layer_checksum(src, dst, kIpProtoIcmpv6, message);
  message[2] = static_cast<uint8_t>(sum >> 8);
  message[3] = static_cast<uint8_t>(sum);
}

void put_link_layer_option(wire::ByteWriter& w, uint8_t type, const wire::MacAddress& mac) {
  w.u8(type);
  w.u8(1);  // length in units of 8 bytes
  w.bytes(mac.bytes);
}

// Walks the options after the fixed part; returns the MAC of the first option of `type`.
Expected<std::optional<wire::MacAddress>, std::string> find_link_layer_option(
    std::span<const uint8_t> options, uint8_t type) {
  std::optional<wire::MacAddress> found;
  while (!options.empty()) {
    if (options.size() < 2) return Unexpected(std::string("truncated option"));
    const size_t length = options[1] * size_t{8};
    if (length == 0) return Unexpected(std::string("option with length 0"));
    if (length > options.size()) return Unexpected(std::string("option runs past the end"));
    if (options[0] == type && !found && length >= 8) {
      wire::MacAddress mac;
      std::copy_n(options.begin() + 2, 6, mac.bytes.begin());
      found = mac;
    }
    options = options.subspan(length);
  }
  return found;
}

}  // namespace

wire::Ipv6Address solicited_node_multicast(const wire::Ipv6Address& address) {
  wire::Ipv6Address m{{0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff}};
  std::copy_n(address.bytes.begin() + 13, 3, m.bytes.begin() + 13);
  return m;
}

wire::MacAddress ipv6_multicast_mac(const wire::Ipv6Address& multicast) {
  wire::MacAddress mac{{0x33, 0x33}};
  std::copy_n(multicast.bytes.begin() + 12, 4, mac.bytes.begin() + 2);
  return mac;
}

Expected<std::optional<NeighborMessage>, std::string> parse_neighbor_discovery(
    const wire::Ipv6& ip, std::span<const uint8_t> icmp) {
  if (icmp.empty()) return Unexpected(std::string("empty ICMPv6 message"));
  const uint8_t type = icmp[0];
  if (type != kIcmpv6NeighborSolicitation && type != kIcmpv6NeighborAdvertisement) {
    return std::optional<NeighborMessage>();
  }
  if (ip.hlim != kNeighborDiscoveryHopLimit) {
    return Unexpected("hop limit " + std::to_string(ip.hlim.value()) + ", not 255");
  }
  if (icmp.size() < kFixedSize) {
    return Unexpected("length " + std::to_string(icmp.size()) + " is below 24");
  }
  if (icmp[1] != 0) return Unexpected("code " + std::to_string(icmp[1]) + ", not 0");
  if (ipv6_upper_layer_checksum(ip.src, ip.dst, kIpProtoIcmpv6, icmp) != 0) {
    return Unexpected(std::string("bad ICMPv6 checksum"));
  }
  wire::Ipv6Address target;
  std::copy_n(icmp.begin() + 8, 16, target.bytes.begin());
  if (is_multicast(target)) return Unexpected("multicast target " + target.to_string());
  const std::span<const uint8_t> options = icmp.subspan(kFixedSize);
  if (type == kIcmpv6NeighborSolicitation) {
    auto lladdr = find_link_layer_option(options, kOptionSourceLinkLayer);
    if (!lladdr) return Unexpected(lladdr.error());
    if (is_unspecified(ip.src) && *lladdr) {
      return Unexpected(std::string("source link-layer option from the unspecified address"));
    }
    return std::optional<NeighborMessage>(NeighborSolicitation{target, *lladdr});
  }
  auto lladdr = find_link_layer_option(options, kOptionTargetLinkLayer);
  if (!lladdr) return Unexpected(lladdr.error());
  NeighborAdvertisement na;
  na.R = (icmp[4] & kFlagRouter) != 0;
  na.S = (icmp[4] & kFlagSolicited) != 0;
  na.O = (icmp[4] & kFlagOverride) != 0;
  na.tgt = target;
  na.dst_lladdr = *lladdr;
  if (na.S && is_multicast(ip.dst)) {
    return Unexpected(std::string("solicited advertisement sent to a multicast address"));
  }
  return std::optional<NeighborMessage>(na);
}

std::vector<uint8_t> build_neighbor_solicitation_frame(const wire::MacAddress& src_mac,
                                                       const wire::Ipv6Address& src,
                                                       const wire::Ipv6Address& target) {
  std::vector<uint8_t> message;
  wire::ByteWriter w(message);
  w.u8(kIcmpv6NeighborSolicitation);
  w.u8(0);
  w.u16(0);  // checksum, filled below
  w.u32(0);  // reserved
  w.bytes(target.bytes);
  put_link_layer_option(w, kOptionSourceLinkLayer, src_mac);
  const wire::Ipv6Address group = solicited_node_multicast(target);
  fill_checksum(src, group, message);
  return build_ipv6_frame(src_mac, ipv6_multicast_mac(group), src, group, kIpProtoIcmpv6, message,
                          kNeighborDiscoveryHopLimit);
}

std::vector<uint8_t> build_neighbor_advertisement_frame(const wire::MacAddress& src_mac,
                                                        const wire::Ipv6Address& src,
                                                        const wire::MacAddress& dst_mac,
                                                        const wire::Ipv6Address& dst,
                                                        const NeighborAdvertisement& advert) {
  std::vector<uint8_t> message;
  wire::ByteWriter w(message);
  w.u8(kIcmpv6NeighborAdvertisement);
  w.u8(0);
  w.u16(0);
  w.u8(static_cast<uint8_t>((advert.R ? kFlagRouter : 0) | (advert.S ? kFlagSolicited : 0) |
                            (advert.O ? kFlagOverride : 0)));
  w.zeros(3);
  w.bytes(advert.tgt.bytes);
  if (advert.dst_lladdr) put_link_layer_option(w, kOptionTargetLinkLayer, *advert.dst_lladdr);
  fill_checksum(src, dst, message);
  return build_ipv6_frame(src_mac, dst_mac, src, dst, kIpProtoIcmpv6, message,
                          kNeighborDiscoveryHopLimit);
}

}  // namespace mr::io
