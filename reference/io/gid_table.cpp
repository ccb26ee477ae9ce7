#include "reference/io/gid_table.h"

#include <algorithm>

namespace mr::io {

wire::Ipv6Address ipv6_link_local(const wire::MacAddress& mac) {
  const auto& m = mac.bytes;
  return wire::Ipv6Address{{0xfe, 0x80, 0, 0, 0, 0, 0, 0, static_cast<uint8_t>(m[0] ^ 0x02), m[1],
                            m[2], 0xff, 0xfe, m[3], m[4], m[5]}};
}

wire::Ipv6Address ipv4_mapped(const wire::Ipv4Address& ipv4) {
  wire::Ipv6Address a{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}};
  std::copy(ipv4.bytes.begin(), ipv4.bytes.end(), a.bytes.begin() + 12);
  return a;
}

std::optional<wire::Ipv4Address> ipv4_from_mapped(const wire::Ipv6Address& gid) {
  const wire::Ipv6Address prefix = ipv4_mapped({});
  if (!std::equal(gid.bytes.begin(), gid.bytes.begin() + 12, prefix.bytes.begin())) {
    return std::nullopt;
  }
  wire::Ipv4Address v4;
  std::copy(gid.bytes.begin() + 12, gid.bytes.end(), v4.bytes.begin());
  return v4;
}

GidTable GidTable::build(const wire::MacAddress& mac, const std::optional<wire::Ipv4Address>& ipv4,
                         std::span<const wire::Ipv6Address> ipv6_global) {
  GidTable t;
  auto add = [&t](const wire::Ipv6Address& gid, GidKind kind) {
    t.entries_.push_back({static_cast<uint32_t>(t.entries_.size()), gid, kind});
  };
  add(ipv6_link_local(mac), GidKind::kIpv6LinkLocal);
  if (ipv4) add(ipv4_mapped(*ipv4), GidKind::kIpv4Mapped);
  for (const auto& a : ipv6_global) add(a, GidKind::kIpv6Global);
  return t;
}

std::optional<wire::Ipv6Address> GidTable::at(uint32_t index) const {
  if (index >= entries_.size()) return std::nullopt;
  return entries_[index].gid;
}

std::optional<uint32_t> GidTable::index_of(const wire::Ipv6Address& gid) const {
  for (const auto& e : entries_) {
    if (e.gid == gid) return e.index;
  }
  return std::nullopt;
}

std::string GidTable::to_string() const {
  std::string s;
  for (const auto& e : entries_) {
    s += "GID[" + std::to_string(e.index) + "]: " + e.gid.to_string() + ", RoCE v2\n";
  }
  return s;
}

}  // namespace mr::io
