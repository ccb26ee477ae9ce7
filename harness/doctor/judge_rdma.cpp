// File: judge_rdma.cpp
//
// The RDMA half of the doctor's rules: is there a device, is each port ACTIVE, does it
// have a RoCE v2 GID that routes, does a full-size packet fit the netdev MTU.

#include <array>
#include <filesystem>
#include <string>

#include "harness/doctor/judge.h"

namespace mr::doctor {
namespace {

constexpr std::array<uint32_t, 5> kIbMtus{4096, 2048, 1024, 512, 256};

std::string port_subject(const RdmaDeviceFacts& d, const PortFacts& p) {
  return d.name + " port " + std::to_string(p.port);
}

bool is_roce_v2(const GidEntry& g) { return g.type == "RoCE v2"; }
bool is_ipv4_mapped(const GidEntry& g) {
  return g.gid.starts_with("::ffff:") && g.gid.find('.') != std::string::npos;
}
bool is_link_local(const GidEntry& g) { return g.gid.starts_with("fe80:"); }

const NetdevFacts* find_netdev(const HostFacts& h, const std::string& name) {
  for (const auto& n : h.netdevs) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

// The "no device" finding, its remedy fitted to what the kernel can load.
Finding no_device(const HostFacts& h) {
  const std::string netdev = h.candidate_netdev.empty() ? "eth0" : h.candidate_netdev;
  const std::string add = "rdma link add rxe0 type rxe netdev " + netdev;
  const std::string where = (std::filesystem::path(h.root) / "sys/class/infiniband").string();
  Finding f{Severity::kError, "rdma.device.present", "",
            "no RDMA device (" + where + " is empty or absent)",
            "load a driver, e.g. 'modprobe rdma_rxe && " + add + "'"};
  switch (h.rxe_module) {
    case RxeModule::kLoaded:
      f.remedy = "rdma_rxe is loaded: add a device, '" + add + "'";
      break;
    case RxeModule::kNoModules:
      f.message = "no RDMA device, and kernel " + h.kernel +
                  " has no /lib/modules directory: modprobe can load no RDMA driver here";
      f.remedy =
          "boot a kernel with CONFIG_RDMA_RXE (Debian's has it), then 'modprobe rdma_rxe && " +
          add + "'";
      break;
    case RxeModule::kMissing:
      f.message = "no RDMA device, and kernel " + h.kernel + " has no rdma_rxe module";
      f.remedy =
          "boot a kernel with CONFIG_RDMA_RXE (Debian's has it), then 'modprobe rdma_rxe && " +
          add + "'";
      break;
    case RxeModule::kAvailable:
    case RxeModule::kUnknown:
      break;
  }
  return f;
}

void device_present(const HostFacts& h, std::vector<Finding>& out) {
  if (h.devices.empty()) {
    out.push_back(no_device(h));
    return;
  }
  for (const auto& d : h.devices) {
    // rxe has no firmware: say nothing rather than "firmware ?".
    const std::string msg = "node type " + (d.node_type.empty() ? "?" : d.node_type) +
                            (d.fw_ver.empty() ? "" : ", firmware " + d.fw_ver) + ", " +
                            std::to_string(d.ports.size()) + " port(s)";
    out.push_back({Severity::kOk, "rdma.device.present", d.name, msg, ""});
  }
}

void netdev_mapping(const HostFacts& h, const RdmaDeviceFacts& d, std::vector<Finding>& out) {
  if (d.netdev.empty()) {
    out.push_back({Severity::kWarning, "rdma.netdev", d.name,
                   "no netdev found under the device (no parent, no GID ndev, no device/net)",
                   "see 'rdma link show' and 'ibdev2netdev'"});
    return;
  }
  const NetdevFacts* n = find_netdev(h, d.netdev);
  if (n == nullptr || !n->present) {
    out.push_back({Severity::kWarning, "rdma.netdev", d.name,
                   "netdev " + d.netdev + " is named but absent from /sys/class/net",
                   "see 'ip link show' and 'rdma link show'"});
    return;
  }
  out.push_back({Severity::kOk, "rdma.netdev", d.name,
                 "on netdev " + n->name + " (" + (n->address.empty() ? "?" : n->address) + ", " +
                     (n->operstate.empty() ? "?" : n->operstate) + ")",
                 ""});
}

void port_state(const RdmaDeviceFacts& d, const PortFacts& p, const NetdevFacts* n,
                std::vector<Finding>& out) {
  const std::string seen =
      (p.state.empty() ? "?" : p.state) + ", " + (p.phys_state.empty() ? "?" : p.phys_state);
  if (p.state == "ACTIVE") {
    out.push_back({Severity::kOk, "port.state", port_subject(d, p), seen, ""});
    return;
  }
  // On Ethernet the port follows its netdev: a netdev that is down is the usual cause.
  std::string remedy = "check the link: 'ethtool " + (d.netdev.empty() ? "IFACE" : d.netdev) +
                       "' and 'rdma link show'";
  if (n != nullptr && n->operstate != "up") remedy = "ip link set " + n->name + " up";
  out.push_back(
      {Severity::kError, "port.state", port_subject(d, p), seen + " (not ACTIVE)", remedy});
}

void rocev2_gid(const RdmaDeviceFacts& d, const PortFacts& p, std::vector<Finding>& out) {
  const GidEntry* routable = nullptr;
  const GidEntry* link_local = nullptr;
  for (const auto& g : p.gids) {
    if (!is_roce_v2(g)) continue;
    if (!is_link_local(g) && routable == nullptr) routable = &g;
    if (is_link_local(g) && link_local == nullptr) link_local = &g;
  }
  const std::string netdev = d.netdev.empty() ? "IFACE" : d.netdev;
  if (routable != nullptr) {
    out.push_back({Severity::kOk, "gid.rocev2", port_subject(d, p),
                   "RoCE v2 GID at index " + std::to_string(routable->index) + ": " + routable->gid,
                   ""});
  } else if (link_local != nullptr) {
    out.push_back({Severity::kWarning, "gid.rocev2", port_subject(d, p),
                   "RoCE v2 only on IPv6 link-local " + link_local->gid + " (index " +
                       std::to_string(link_local->index) + "): it does not route",
                   "give " + netdev + " an IPv4 address, e.g. 'ip addr add 198.18.0.2/15 dev " +
                       netdev + "'"});
  } else {
    out.push_back({Severity::kError, "gid.rocev2", port_subject(d, p),
                   "no RoCE v2 GID among " + std::to_string(p.gids.size()) + " GID(s)",
                   "give " + netdev + " an IP address ('ip addr add 198.18.0.2/15 dev " + netdev +
                       "'); a kernel without RoCE v2 GIDs needs CONFIG_INFINIBAND_ADDR_TRANS"});
  }
}

void mtu_match(const RdmaDeviceFacts& d, const PortFacts& p, const NetdevFacts* n,
               std::vector<Finding>& out) {
  if (n == nullptr || !n->mtu) return;  // rdma.netdev already says why
  bool ipv4 = p.gids.empty();
  for (const auto& g : p.gids) ipv4 = ipv4 || (is_roce_v2(g) && is_ipv4_mapped(g));
  const uint32_t overhead = ipv4 ? kRoceV2OverheadIpv4 : kRoceV2OverheadIpv6;
  uint32_t fits = 0;
  for (uint32_t m : kIbMtus) {
    if (fits == 0 && m + overhead <= *n->mtu) fits = m;
  }
  const std::string netdev_mtu = "netdev " + n->name + " MTU " + std::to_string(*n->mtu);
  const std::string largest =
      fits == 0 ? "no IB MTU fits" : "IB MTU up to " + std::to_string(fits) + " fits";
  if (!p.active_mtu) {
    out.push_back(
        {Severity::kWarning, "mtu.match", port_subject(d, p),
         "active MTU unknown (no verbs query answered); " + netdev_mtu + ": " + largest,
         "ibv_devinfo -d " + d.name + " -i " + std::to_string(p.port) + " | grep active_mtu"});
    return;
  }
  const uint32_t need = *p.active_mtu + overhead;
  const std::string sum = "active MTU " + std::to_string(*p.active_mtu) + " + " +
                          std::to_string(overhead) + " header bytes = " + std::to_string(need);
  if (need > *n->mtu) {
    out.push_back({Severity::kError, "mtu.match", port_subject(d, p),
                   sum + " > " + netdev_mtu + ": full-size packets cannot be sent",
                   "ip link set " + n->name + " mtu " + std::to_string(need) +
                       " (and the switch port)" +
                       (fits == 0 ? "" : ", or use path_mtu " + std::to_string(fits))});
    return;
  }
  out.push_back({Severity::kOk, "mtu.match", port_subject(d, p),
                 sum + " <= " + netdev_mtu + (fits > *p.active_mtu ? " (" + largest + ")" : ""),
                 ""});
}

}  // namespace

void judge_rdma(const HostFacts& h, std::vector<Finding>& out) {
  device_present(h, out);
  for (const auto& d : h.devices) {
    netdev_mapping(h, d, out);
    const NetdevFacts* n = d.netdev.empty() ? nullptr : find_netdev(h, d.netdev);
    if (n != nullptr && !n->present) n = nullptr;
    if (d.ports.empty()) {
      out.push_back({Severity::kError, "port.state", d.name, "the device has no ports",
                     "reload its driver, or 'rdma link delete " + d.name + "' and add it again"});
    }
    for (const auto& p : d.ports) {
      port_state(d, p, n, out);
      if (p.link_layer != "Ethernet") {
        out.push_back({Severity::kWarning, "port.link_layer", port_subject(d, p),
                       "link layer " + (p.link_layer.empty() ? "unknown" : p.link_layer) +
                           ": not a RoCE port, RoCE checks skipped",
                       "use an Ethernet (RoCE) port or device"});
        continue;
      }
      rocev2_gid(d, p, out);
      mtu_match(d, p, n, out);
    }
  }
}

}  // namespace mr::doctor
