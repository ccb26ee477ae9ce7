// File: judge_qos.cpp
//
// The QoS half of the doctor's rules, per netdev under an RDMA device: RoCE ECN where the
// driver makes it tunable, PFC and DSCP trust as dcb shows them, offloads as ethtool -k
// shows them. What cannot be seen is a warning that says why, never an error: lossy RoCE
// with selective retransmission is a legitimate configuration.

#include <optional>
#include <string>

#include "harness/doctor/judge.h"

namespace mr::doctor {
namespace {

std::string list(const std::vector<uint32_t>& v) {
  std::string s;
  for (uint32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// The finding for a tool that gave no usable answer; nullopt when it answered.
std::optional<Finding> unavailable(const ToolProbe& p, const std::string& check,
                                   const std::string& subject, const std::string& what,
                                   const std::string& package, const std::string& if_failed) {
  switch (p.status) {
    case ToolStatus::kOk:
      return std::nullopt;
    case ToolStatus::kNotRun:
      return Finding{Severity::kOk, check, subject,
                     what + " not checked: the inspected tree is not the live host", ""};
    case ToolStatus::kAbsent:
      return Finding{Severity::kWarning, check, subject,
                     what + " not checked: " + p.command.substr(0, p.command.find(' ')) +
                         " is not installed (wanted '" + p.command + "')",
                     "apt-get install " + package};
    case ToolStatus::kFailed:
      return Finding{Severity::kWarning, check, subject, what + " not visible: " + p.text,
                     if_failed};
  }
  return std::nullopt;
}

void ecn(const HostFacts& h, const NetdevFacts& n, std::vector<Finding>& out) {
  const std::string tcp = h.tcp_ecn ? "; tcp_ecn=" + std::to_string(*h.tcp_ecn) : "";
  if (n.roce_ecn.empty()) {
    out.push_back({Severity::kOk, "ecn", n.name,
                   "the driver exposes no RoCE ECN knobs (/sys/class/net/" + n.name +
                       "/ecn), so nothing to tune here (rxe implements no DCQCN)" + tcp,
                   ""});
    return;
  }
  std::string off;
  std::string remedy;
  for (const auto& [side, prios] : n.roce_ecn) {
    std::vector<uint32_t> disabled;
    for (const auto& [prio, on] : prios) {
      if (!on) disabled.push_back(prio);
    }
    if (disabled.empty()) continue;
    off += (off.empty() ? "" : ", ") + side + " priorities " + list(disabled);
    if (remedy.empty()) {
      remedy = "echo 1 > /sys/class/net/" + n.name + "/ecn/" + side + "/enable/" +
               std::to_string(disabled.front()) + " (for each priority off)";
    }
  }
  if (off.empty()) {
    out.push_back(
        {Severity::kOk, "ecn", n.name, "RoCE ECN on for every exposed priority" + tcp, ""});
  } else {
    out.push_back({Severity::kWarning, "ecn", n.name, "RoCE ECN off on " + off + tcp, remedy});
  }
}

void pfc(const NetdevFacts& n, std::vector<Finding>& out) {
  const QosFacts& q = n.qos;
  if (auto f = unavailable(q.pfc, "pfc", n.name, "PFC", "iproute2",
                           "the driver exposes no DCB (rxe has none): set PFC on the switch, or "
                           "run lossy with selective retransmission")) {
    out.push_back(*f);
    return;
  }
  if (q.pfc_priorities.empty()) {
    out.push_back({Severity::kWarning, "pfc", n.name,
                   "PFC off on every priority: RoCE runs lossy here (fine with selective "
                   "retransmission)",
                   "dcb pfc set dev " + n.name + " prio-pfc 3:on (and the switch port alike)"});
    return;
  }
  out.push_back({Severity::kOk, "pfc", n.name, "PFC on priorities " + list(q.pfc_priorities), ""});
}

void dscp_trust(const NetdevFacts& n, std::vector<Finding>& out) {
  const QosFacts& q = n.qos;
  if (auto f = unavailable(q.app, "dscp.trust", n.name, "DSCP trust", "iproute2",
                           "the driver exposes no DCB app table: map DSCP on the switch")) {
    out.push_back(*f);
    return;
  }
  if (q.dscp_prio.empty()) {
    out.push_back({Severity::kWarning, "dscp.trust", n.name,
                   "no DSCP-to-priority map: RoCE's DSCP selects no priority on this port",
                   "dcb app add dev " + n.name + " dscp-prio 26:3"});
    return;
  }
  std::string map;
  for (const auto& [dscp, prio] : q.dscp_prio) {
    map += (map.empty() ? "" : " ") + std::to_string(dscp) + ":" + std::to_string(prio);
  }
  out.push_back({Severity::kOk, "dscp.trust", n.name, "DSCP trusted, dscp-prio " + map, ""});
}

void offload(const NetdevFacts& n, std::vector<Finding>& out) {
  const QosFacts& q = n.qos;
  if (auto f = unavailable(q.offload, "offload", n.name, "offloads", "ethtool",
                           "ethtool -k " + n.name + " (run it by hand to see why)")) {
    out.push_back(*f);
    return;
  }
  // ethtool has no RDMA flag of its own; these are the ones a RoCE path goes through.
  std::string seen;
  for (const char* key : {"rx-checksumming", "tx-checksumming", "scatter-gather",
                          "generic-receive-offload", "hw-tc-offload"}) {
    auto it = q.features.find(key);
    if (it != q.features.end()) seen += (seen.empty() ? "" : ", ") + it->first + " " + it->second;
  }
  out.push_back(
      {Severity::kOk, "offload", n.name,
       std::to_string(q.features.size()) + " features" + (seen.empty() ? "" : ": " + seen), ""});
}

}  // namespace

void judge_qos(const HostFacts& h, std::vector<Finding>& out) {
  for (const auto& n : h.netdevs) {
    if (!n.present) continue;
    ecn(h, n, out);
    pfc(n, out);
    dscp_trust(n, out);
    offload(n, out);
  }
}

}  // namespace mr::doctor
