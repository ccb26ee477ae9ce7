#include "reference/io/fabric/fabric_namespaces.h"

#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/veth_pair.h"

namespace mr::io::fabric {
namespace {

// The kernel's own IPv6 (link-local, router and neighbour solicitations) would be traffic
// the test did not send; the fabric would carry it.
Expected<void, std::string> quiet_ipv6(const NetworkNamespace& ns, const std::string& interface) {
  return ns.write_sysctl("/proc/sys/net/ipv6/conf/" + interface + "/disable_ipv6", "1");
}

Expected<void, std::string> up(const NetworkNamespace& ns, const std::string& interface,
                               unsigned mtu) {
  if (auto ok = quiet_ipv6(ns, interface); !ok) return ok;
  if (auto ok = ns.ip({"link", "set", interface, "mtu", std::to_string(mtu)}); !ok)
    return Unexpected(ok.error());
  if (auto ok = ns.ip({"link", "set", interface, "up"}); !ok) return Unexpected(ok.error());
  return {};
}

}  // namespace

std::string FabricNamespaces::endpoint_interface(uint32_t plane) {
  return "mrp" + std::to_string(plane);
}

std::string FabricNamespaces::fabric_interface(uint32_t plane, uint32_t endpoint) {
  return "mrf" + std::to_string(plane) + "e" + std::to_string(endpoint);
}

Expected<std::unique_ptr<FabricNamespaces>, std::string> FabricNamespaces::create(
    const FabricConfig& config, const FabricNamespacesOptions& options) {
  if (auto ok = validate_fabric_config(config); !ok) return Unexpected(ok.error().to_string());
  auto fabric_ns = NetworkNamespace::create();
  if (!fabric_ns) return Unexpected("fabric namespace: " + fabric_ns.error());
  const auto planes = static_cast<uint32_t>(config.planes.size());
  std::unique_ptr<FabricNamespaces> net(new FabricNamespaces(std::move(*fabric_ns), planes));
  const FabricAddressing& plan = config.addressing;
  for (uint32_t e = 0; e < config.endpoints; ++e) {
    const std::string who = "endpoint " + std::to_string(e) + ": ";
    auto ns = NetworkNamespace::create();
    if (!ns) return Unexpected(who + ns.error());
    net->endpoints_.push_back(std::move(*ns));
    const NetworkNamespace& host = net->endpoints_.back();
    for (uint32_t p = 0; p < planes; ++p) {
      const std::string port = endpoint_interface(p);
      const std::string cable = fabric_interface(p, e);
      auto made = host.ip({"link", "add", port, "address", plan.mac(p, e).to_string(), "type",
                           "veth", "peer", "name", cable, "netns", net->fabric_.name()});
      if (!made) return Unexpected(who + made.error());
      if (auto ok = up(host, port, options.mtu); !ok) return Unexpected(who + ok.error());
      if (auto ok = up(net->fabric_, cable, options.mtu); !ok) return Unexpected(who + ok.error());
      // A shared plan gives every port of an endpoint the same address: the kernel gets it
      // once, on plane 0's port.
      if (!options.kernel_addresses || (plan.shared && p > 0)) continue;
      // One /32 per port and a host route per peer: each plane's addresses are its own
      // subnet in the plan, and the kernel must send a peer's traffic out of that plane's port.
      const std::string address = plan.ipv4(p, e).to_string();
      const std::string host_prefix = address + "/32";
      if (!is_benchmarking_cidr(host_prefix)) {
        std::string why = who;
        why += "addressing.ipv4_base: ";
        why += address;
        why += " is outside 198.18.0.0/15, the only range tests may use";
        return Unexpected(why);
      }
      if (auto ok = host.ip({"addr", "add", host_prefix, "dev", port}); !ok)
        return Unexpected(who + ok.error());
      for (uint32_t peer = 0; peer < config.endpoints; ++peer) {
        if (peer == e) continue;
        const std::string peer_ip = plan.ipv4(p, peer).to_string();
        if (auto ok = host.ip({"route", "add", peer_ip + "/32", "dev", port, "src", address}); !ok)
          return Unexpected(who + ok.error());
        if (auto ok = host.ip({"neigh", "add", peer_ip, "lladdr", plan.mac(p, peer).to_string(),
                               "dev", port, "nud", "permanent"});
            !ok)
          return Unexpected(who + ok.error());
      }
    }
  }
  return net;
}

Expected<PcapLink, std::string> FabricNamespaces::open_endpoint_link(uint32_t endpoint,
                                                                     uint32_t plane) const {
  if (endpoint >= endpoints() || plane >= planes_)
    return Unexpected("endpoint " + std::to_string(endpoint) + ", plane " + std::to_string(plane) +
                      ": the namespaces have " + std::to_string(endpoints()) + " endpoints and " +
                      std::to_string(planes_) + " planes");
  auto link =
      open_pcap_link_in(endpoints_[endpoint], endpoint_interface(plane), {.snap_length = 0});
  if (!link) return Unexpected(endpoint_interface(plane) + ": " + link.error());
  return std::move(*link);
}

Expected<std::vector<std::vector<PcapLink>>, std::string> FabricNamespaces::open_fabric_links()
    const {
  std::vector<std::vector<PcapLink>> links(planes_);
  for (uint32_t p = 0; p < planes_; ++p) {
    for (uint32_t e = 0; e < endpoints(); ++e) {
      auto link = open_pcap_link_in(fabric_, fabric_interface(p, e), fabric_port_link_options());
      if (!link) return Unexpected(fabric_interface(p, e) + ": " + link.error());
      links[p].push_back(std::move(*link));
    }
  }
  return links;
}

}  // namespace mr::io::fabric
