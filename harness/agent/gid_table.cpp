#include "harness/agent/gid_table.h"

#include <algorithm>
#include <variant>

#include "harness/agent/verbs_mapping.h"

namespace mr::agent {
namespace {

bool is_link_local(const wire::Ipv6Address& a) {
  return a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0x80;
}

std::string ip_text(const transport::IpAddress& ip) {
  return std::visit([](const auto& a) { return a.to_string(); }, ip);
}

}  // namespace

std::optional<std::string> parse_gid_type(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text == "RoCE v2") return "RoCEv2";
  if (text == "IB/RoCE v1" || text == "RoCE v1") return "RoCEv1";
  return std::nullopt;
}

bool is_ipv4_mapped(const wire::Ipv6Address& gid) {
  const auto& b = gid.bytes;
  return std::all_of(b.begin(), b.begin() + 10, [](uint8_t x) { return x == 0; }) &&
         b[10] == 0xff && b[11] == 0xff;
}

std::optional<uint32_t> default_gid_index(const std::vector<SysfsGid>& gids) {
  for (const auto& g : gids) {
    if (g.type == "RoCEv2" && is_ipv4_mapped(g.gid)) return g.index;
  }
  return std::nullopt;
}

Result<uint32_t> select_sgid_index(const std::vector<SysfsGid>& gids, uint32_t default_index,
                                   const transport::IpAddress& dip,
                                   const std::optional<transport::IpAddress>& sip) {
  if (sip) {
    const wire::Ipv6Address want = gid_address(*sip);
    for (const auto& g : gids) {
      if (g.type == "RoCEv2" && g.gid == want) return g.index;
    }
    return control_error(ErrorCode::kEinval, "no RoCE v2 GID of the port holds " + ip_text(*sip),
                         "attrs.av.sip");
  }
  const bool v4 = std::holds_alternative<wire::Ipv4Address>(dip);
  const bool want_link_local = !v4 && is_link_local(std::get<wire::Ipv6Address>(dip));
  auto fits = [&](const SysfsGid& g) {
    if (g.type != "RoCEv2" || is_ipv4_mapped(g.gid) != v4) return false;
    return v4 || is_link_local(g.gid) == want_link_local;
  };
  for (const auto& g : gids) {
    if (g.index == default_index && fits(g)) return g.index;
  }
  for (const auto& g : gids) {
    if (fits(g)) return g.index;
  }
  return control_error(ErrorCode::kEinval,
                       std::string("no RoCE v2 GID of the port is of dip's family (") +
                           (v4                ? "IPv4"
                            : want_link_local ? "IPv6 link-local"
                                              : "IPv6") +
                           ")",
                       "attrs.av.dip");
}

}  // namespace mr::agent
