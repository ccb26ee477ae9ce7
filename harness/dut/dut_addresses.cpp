#include "harness/dut/dut_addresses.h"

#include <algorithm>
#include <optional>

namespace mr::dut {
namespace {

// fe80::/10: an address that only means something on its own link.
bool is_link_local(const wire::Ipv6Address& a) {
  return a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0x80;
}

std::string not_an_ip(const std::string& dut, const std::string& ip) {
  return dut + ": capabilities.ips: '" + ip + "' is not an IP address";
}

struct ReportedAddresses {
  wire::MacAddress mac;
  std::vector<wire::Ipv4Address> ipv4;
  std::vector<wire::Ipv6Address> ipv6;
};

Expected<ReportedAddresses, std::string> reported(const protocol::Capabilities& caps,
                                                  const std::string& dut) {
  ReportedAddresses r;
  auto mac = wire::MacAddress::parse(caps.mac);
  if (!mac) return Unexpected(dut + ": capabilities.mac '" + caps.mac + "' is not a MAC address");
  r.mac = *mac;
  for (const auto& ip : caps.ips) {
    if (auto v4 = wire::Ipv4Address::parse(ip)) {
      r.ipv4.push_back(*v4);
    } else if (auto v6 = wire::Ipv6Address::parse(ip)) {
      r.ipv6.push_back(*v6);
    } else {
      return Unexpected(not_an_ip(dut, ip));
    }
  }
  return r;
}

std::string joined(const auto& addresses) {
  std::string out;
  for (const auto& a : addresses) out += (out.empty() ? "" : ", ") + a.to_string();
  return out.empty() ? "none" : out;
}

// The message that refuses a named PIXIT, naming both sides.
std::string mismatch(const AddressOrigin& o, const std::string& field, const std::string& pixit,
                     const std::string& agent) {
  return "--pixit " + o.pixit_path + ": " + field + " is " + pixit + ", but the DUT at " + o.dut +
         " reports " + agent +
         ": correct the PIXIT, or leave --pixit out to take the DUT's "
         "addresses from its agent";
}

// The agent's IPv6 address for a bed whose tester is `tester`: of the same scope (a
// link-local tester talks to a link-local DUT), the first one the agent lists.
std::optional<wire::Ipv6Address> same_scope(const std::vector<wire::Ipv6Address>& reported,
                                            const wire::Ipv6Address& tester) {
  for (const auto& a : reported) {
    if (is_link_local(a) == is_link_local(tester)) return a;
  }
  return std::nullopt;
}

}  // namespace

Expected<std::vector<std::string>, std::string> adopt_dut_addresses(
    engine::Pixit& pixit, const protocol::Capabilities& caps, const AddressOrigin& origin) {
  auto r = reported(caps, origin.dut);
  if (!r) return Unexpected(r.error());
  const bool has_ipv4 = std::ranges::find(r->ipv4, pixit.dut_ip) != r->ipv4.end();
  const bool has_ipv6 =
      !pixit.dut_ip6 || std::ranges::find(r->ipv6, *pixit.dut_ip6) != r->ipv6.end();
  if (origin.pixit_named) {
    if (!(pixit.dut_mac == r->mac))
      return Unexpected(mismatch(origin, "dut.mac", pixit.dut_mac.to_string(), r->mac.to_string()));
    if (!has_ipv4)
      return Unexpected(mismatch(origin, "dut.ipv4", pixit.dut_ip.to_string(), joined(r->ipv4)));
    if (!has_ipv6)
      return Unexpected(mismatch(origin, "dut.ipv6", pixit.dut_ip6->to_string(), joined(r->ipv6)));
    return std::vector<std::string>{};
  }
  std::vector<std::string> adopted;
  if (!(pixit.dut_mac == r->mac)) {
    pixit.dut_mac = r->mac;
    adopted.push_back("dut.mac " + r->mac.to_string());
  }
  if (!has_ipv4) {
    if (r->ipv4.empty())
      return Unexpected(origin.dut + ": the agent reports no IPv4 address (capabilities.ips: " +
                        joined(r->ipv6) + "); the base suite runs over IPv4");
    pixit.dut_ip = r->ipv4.front();
    adopted.push_back("dut.ipv4 " + pixit.dut_ip.to_string());
  }
  if (!has_ipv6) {
    pixit.dut_ip6 = pixit.tester_ip6 ? same_scope(r->ipv6, *pixit.tester_ip6) : std::nullopt;
    if (pixit.dut_ip6) {
      adopted.push_back("dut.ipv6 " + pixit.dut_ip6->to_string());
    } else {
      // No IPv6 address the tester can reach: the IPv6 test purposes will say so.
      pixit.tester_ip6.reset();
      adopted.push_back("no IPv6 bed (the agent reports " + joined(r->ipv6) + ")");
    }
  }
  return adopted;
}

}  // namespace mr::dut
