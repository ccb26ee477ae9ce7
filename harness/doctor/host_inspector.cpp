#include "harness/doctor/host_inspector.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string_view>

#include "harness/doctor/qos_parse.h"

namespace mr::doctor {
namespace {

const std::string kIb = "sys/class/infiniband/";
const std::string kNet = "sys/class/net/";

// sysfs writes port states as "4: ACTIVE" and "5: LinkUp": the name is what people read.
std::string state_name(const std::optional<std::string>& text) {
  if (!text) return "";
  const auto colon = text->find(": ");
  return colon == std::string::npos ? *text : text->substr(colon + 2);
}

// sysfs GIDs are eight full groups; the compact form is what ip and show_gids print.
// Empty for the all-zero (unused) entry and for text that is not an IPv6 address.
std::string compact_gid(const std::string& text) {
  std::array<unsigned char, 16> bytes{};
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) != 1) return "";
  if (std::all_of(bytes.begin(), bytes.end(), [](unsigned char b) { return b == 0; })) return "";
  std::array<char, INET6_ADDRSTRLEN> out{};
  if (inet_ntop(AF_INET6, bytes.data(), out.data(), out.size()) == nullptr) return "";
  return out.data();
}

// One path from its parts, built in place (no temporaries per `+`).
std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (auto p : parts) s.append(p);
  return s;
}

std::optional<uint32_t> small_uint(const std::string& s) {
  if (s.empty() || s.size() > 9 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {};
  return static_cast<uint32_t>(std::stoul(s));
}

}  // namespace

InspectOptions inspect_options_for(const std::string& root) {
  InspectOptions o;
  o.root = root.empty() ? "/" : root;
  if (o.root == "/") {
    o.active_mtu = verbs_active_mtu_query();
    o.tools = system_tool_runner();
  }
  return o;
}

HostFacts HostInspector::inspect() const {
  HostFacts h;
  h.root = options_.root;
  h.hostname = tree_.read("proc/sys/kernel/hostname").value_or("");
  h.kernel = tree_.read("proc/sys/kernel/osrelease").value_or("");
  if (auto ecn = tree_.read_uint("proc/sys/net/ipv4/tcp_ecn")) h.tcp_ecn = static_cast<int>(*ecn);
  for (const auto& name : tree_.list(kIb)) h.devices.push_back(device(name));
  for (const auto& d : h.devices) {
    if (d.netdev.empty()) continue;
    const bool seen = std::any_of(h.netdevs.begin(), h.netdevs.end(),
                                  [&](const NetdevFacts& n) { return n.name == d.netdev; });
    if (!seen) h.netdevs.push_back(netdev(d.netdev));
  }
  h.candidate_netdev = candidate_netdev();
  h.rxe_module = rxe_module(h.kernel);
  return h;
}

RdmaDeviceFacts HostInspector::device(const std::string& name) const {
  RdmaDeviceFacts d;
  d.name = name;
  d.node_type = state_name(tree_.read(kIb + name + "/node_type"));
  d.fw_ver = tree_.read(kIb + name + "/fw_ver").value_or("");
  for (const auto& p : tree_.list(kIb + name + "/ports")) d.ports.push_back(port(name, p));
  std::sort(d.ports.begin(), d.ports.end(),
            [](const PortFacts& a, const PortFacts& b) { return a.port < b.port; });
  d.netdev = netdev_of(d);
  return d;
}

PortFacts HostInspector::port(const std::string& device, const std::string& number) const {
  const std::string dir = kIb + device + "/ports/" + number + "/";
  PortFacts p;
  p.port = small_uint(number).value_or(0);
  p.state = state_name(tree_.read(dir + "state"));
  p.phys_state = state_name(tree_.read(dir + "phys_state"));
  p.link_layer = tree_.read(dir + "link_layer").value_or("");
  if (options_.active_mtu) p.active_mtu = options_.active_mtu(device, p.port);
  for (const auto& index : tree_.list(dir + "gids")) {
    auto i = small_uint(index);
    if (!i) continue;
    GidEntry g;
    g.index = *i;
    g.gid = compact_gid(tree_.read(join({dir, "gids/", index})).value_or(""));
    if (g.gid.empty()) continue;  // an unused entry
    g.type = tree_.read(join({dir, "gid_attrs/types/", index})).value_or("");
    g.netdev = tree_.read(join({dir, "gid_attrs/ndevs/", index})).value_or("");
    p.gids.push_back(std::move(g));
  }
  std::sort(p.gids.begin(), p.gids.end(),
            [](const GidEntry& a, const GidEntry& b) { return a.index < b.index; });
  return p;
}

// As ibdev2netdev finds it: rxe and siw name their netdev in `parent`; hardware devices
// have theirs under device/net; the GID table's ndevs name it for any RoCE device.
std::string HostInspector::netdev_of(const RdmaDeviceFacts& d) const {
  if (auto parent = tree_.read(kIb + d.name + "/parent"); parent && !parent->empty()) {
    return *parent;
  }
  for (const auto& p : d.ports) {
    for (const auto& g : p.gids) {
      if (!g.netdev.empty()) return g.netdev;
    }
  }
  const auto net = tree_.list(kIb + d.name + "/device/net");
  return net.empty() ? "" : net.front();
}

NetdevFacts HostInspector::netdev(const std::string& name) const {
  const std::string dir = kNet + name + "/";
  NetdevFacts n;
  n.name = name;
  n.present = tree_.exists(dir);
  if (auto mtu = tree_.read_uint(dir + "mtu")) n.mtu = static_cast<uint32_t>(*mtu);
  n.address = tree_.read(dir + "address").value_or("");
  n.operstate = tree_.read(dir + "operstate").value_or("");
  for (const auto& side : tree_.list(dir + "ecn")) {
    for (const auto& prio : tree_.list(join({dir, "ecn/", side, "/enable"}))) {
      auto p = small_uint(prio);
      auto on = tree_.read_uint(join({dir, "ecn/", side, "/enable/", prio}));
      if (p && on) n.roce_ecn[side][*p] = *on != 0;
    }
  }
  for (const char* key : {"rp_filter", "arp_ignore", "arp_announce"}) {
    if (auto v = tree_.read(join({"proc/sys/net/ipv4/conf/", name, "/", key}))) n.sysctl[key] = *v;
  }
  n.qos = qos(name);
  return n;
}

QosFacts HostInspector::qos(const std::string& netdev) const {
  QosFacts q;
  q.pfc = probe(options_.tools, {"dcb", "pfc", "show", "dev", netdev});
  q.app = probe(options_.tools, {"dcb", "-N", "app", "show", "dev", netdev});
  q.ets = probe(options_.tools, {"dcb", "ets", "show", "dev", netdev});
  q.offload = probe(options_.tools, {"ethtool", "-k", netdev});
  if (q.pfc.status == ToolStatus::kOk) {
    q.pfc_priorities = parse_pfc_priorities(q.pfc.text).value_or(std::vector<uint32_t>{});
  }
  if (q.app.status == ToolStatus::kOk) q.dscp_prio = parse_dscp_prio(q.app.text);
  if (q.offload.status == ToolStatus::kOk) q.features = parse_ethtool_features(q.offload.text);
  return q;
}

RxeModule HostInspector::rxe_module(const std::string& kernel) const {
  if (tree_.exists("sys/module/rdma_rxe")) return RxeModule::kLoaded;
  if (kernel.empty()) return RxeModule::kUnknown;
  const std::string modules = join({"lib/modules/", kernel, "/"});
  if (!tree_.exists(modules)) return RxeModule::kNoModules;
  const std::string dir = modules + "kernel/drivers/infiniband/sw/rxe";
  for (const auto& name : tree_.list(dir)) {
    if (name.starts_with("rdma_rxe.ko")) return RxeModule::kAvailable;  // .ko, .ko.xz, .ko.zst
  }
  // Built in (rare): /sys/module/rdma_rxe would have shown it when it has parameters.
  return RxeModule::kMissing;
}

std::string HostInspector::candidate_netdev() const {
  std::string fallback;
  for (const auto& name : tree_.list(kNet)) {
    if (name == "lo") continue;
    if (tree_.read(kNet + name + "/operstate") == "up") return name;
    if (fallback.empty()) fallback = name;
  }
  return fallback;
}

}  // namespace mr::doctor
