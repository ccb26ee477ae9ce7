#include "harness/doctor/host_facts_json.h"

namespace mr::doctor {
namespace {

// Enough for any dcb or ethtool -k output; a runaway tool cannot bloat the manifest.
constexpr size_t kMaxToolText = 8192;

const char* rxe_module_name(RxeModule m) {
  switch (m) {
    case RxeModule::kLoaded:
      return "loaded";
    case RxeModule::kAvailable:
      return "available";
    case RxeModule::kMissing:
      return "missing";
    case RxeModule::kNoModules:
      return "no_modules";
    case RxeModule::kUnknown:
      return "unknown";
  }
  return "unknown";
}

const char* status_name(ToolStatus s) {
  switch (s) {
    case ToolStatus::kNotRun:
      return "not_run";
    case ToolStatus::kAbsent:
      return "absent";
    case ToolStatus::kFailed:
      return "failed";
    case ToolStatus::kOk:
      return "ok";
  }
  return "failed";
}

Json to_json(const ToolProbe& p) {
  return {{"command", p.command},
          {"status", status_name(p.status)},
          {"output", p.text.substr(0, kMaxToolText)}};
}

Json to_json(const PortFacts& p) {
  Json gids = Json::array();
  for (const auto& g : p.gids) {
    gids.push_back({{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"netdev", g.netdev}});
  }
  return {{"port", p.port},
          {"state", p.state},
          {"phys_state", p.phys_state},
          {"link_layer", p.link_layer},
          {"active_mtu", p.active_mtu ? Json(*p.active_mtu) : Json(nullptr)},
          {"gids", std::move(gids)}};
}

Json to_json(const RdmaDeviceFacts& d) {
  Json ports = Json::array();
  for (const auto& p : d.ports) ports.push_back(to_json(p));
  return {{"name", d.name},
          {"node_type", d.node_type},
          {"fw_ver", d.fw_ver},
          {"netdev", d.netdev},
          {"ports", std::move(ports)}};
}

Json to_json(const NetdevFacts& n) {
  Json ecn = Json::object();
  for (const auto& [side, prios] : n.roce_ecn) {
    Json enabled = Json::object();
    for (const auto& [prio, on] : prios) enabled[std::to_string(prio)] = on;
    ecn[side] = std::move(enabled);
  }
  Json dscp = Json::object();
  for (const auto& [d, p] : n.qos.dscp_prio) dscp[std::to_string(d)] = p;
  return {{"name", n.name},
          {"present", n.present},
          {"mtu", n.mtu ? Json(*n.mtu) : Json(nullptr)},
          {"address", n.address},
          {"operstate", n.operstate},
          {"roce_ecn", std::move(ecn)},
          {"sysctl", n.sysctl},
          {"pfc_priorities", n.qos.pfc_priorities},
          {"dscp_prio", std::move(dscp)},
          {"features", n.qos.features},
          {"tools", Json::array({to_json(n.qos.pfc), to_json(n.qos.app), to_json(n.qos.ets),
                                 to_json(n.qos.offload)})}};
}

}  // namespace

Json to_json(const HostFacts& h) {
  Json devices = Json::array();
  for (const auto& d : h.devices) devices.push_back(to_json(d));
  Json netdevs = Json::array();
  for (const auto& n : h.netdevs) netdevs.push_back(to_json(n));
  return {{"root", h.root},
          {"hostname", h.hostname},
          {"kernel", h.kernel},
          {"tcp_ecn", h.tcp_ecn ? Json(*h.tcp_ecn) : Json(nullptr)},
          {"rdma_rxe", rxe_module_name(h.rxe_module)},
          {"devices", std::move(devices)},
          {"netdevs", std::move(netdevs)}};
}

}  // namespace mr::doctor
