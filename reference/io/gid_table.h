// File: gid_table.h
//
// A port's GID table as Linux rxe fills it for a RoCEv2 netdev: every GID is an IPv6
// address (RoCEv2 puts the GID in the IP header), derived from the interface's addresses.
//   index 0: the IPv6 link-local address fe80::/64 from the MAC by modified EUI-64
//   index 1: the IPv4-mapped address ::ffff:a.b.c.d, when the node has IPv4
//   then:    each global IPv6 address, in the order given
// (rxe lists RoCE v1 and v2 types of each address; MetaRoCE is RoCEv2 only, so one entry
// per address. See notes/toolchain.md: rxe in the guest showed GID 0 = link-local and
// GID 1 = IPv4-mapped.)
//
// Usage:
//   auto gids = GidTable::build(mac, ipv4, {});
//   auto sgid = gids.at(1);             // ::ffff:198.18.0.1
//   auto index = gids.index_of(*sgid);  // 1
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reference/wire/address.h"

namespace mr::io {

// The modified EUI-64 interface identifier of RFC 4291 appendix A, under fe80::/64.
wire::Ipv6Address ipv6_link_local(const wire::MacAddress& mac);
// ::ffff:a.b.c.d (RFC 4291 section 2.5.5.2).
wire::Ipv6Address ipv4_mapped(const wire::Ipv4Address& ipv4);
// The IPv4 address inside an IPv4-mapped GID; nullopt for any other GID.
std::optional<wire::Ipv4Address> ipv4_from_mapped(const wire::Ipv6Address& gid);

enum class GidKind : uint8_t { kIpv6LinkLocal, kIpv4Mapped, kIpv6Global };

struct GidEntry {
  uint32_t index = 0;
  wire::Ipv6Address gid;
  GidKind kind = GidKind::kIpv6LinkLocal;
};

class GidTable {
 public:
  static GidTable build(const wire::MacAddress& mac, const std::optional<wire::Ipv4Address>& ipv4,
                        std::span<const wire::Ipv6Address> ipv6_global);

  std::span<const GidEntry> entries() const { return entries_; }
  std::optional<wire::Ipv6Address> at(uint32_t index) const;
  std::optional<uint32_t> index_of(const wire::Ipv6Address& gid) const;
  // One line per entry, as `ibv_devinfo -v` / show_gids would list them.
  std::string to_string() const;

 private:
  std::vector<GidEntry> entries_;
};

}  // namespace mr::io
