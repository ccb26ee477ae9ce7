// File: host_inspector.h
//
// Collects HostFacts from a sysfs/procfs root: /sys/class/infiniband (devices, ports, GID
// tables), /sys/class/net (MTU, state, RoCE ECN knobs), /proc/sys/net/ipv4 (tcp_ecn,
// conf/<if>), plus the active MTU through verbs and PFC, DSCP trust and offloads through
// dcb and ethtool. It judges nothing (judge.h does).
//
//   HostFacts facts = HostInspector(inspect_options_for("/")).inspect();
//   // a test: HostInspector({.root = tmp, .active_mtu = fake_mtu, .tools = fake_tools})
#pragma once

#include <string>

#include "harness/doctor/active_mtu.h"
#include "harness/doctor/host_facts.h"
#include "harness/doctor/sysfs_tree.h"
#include "harness/doctor/tool_runner.h"

namespace mr::doctor {

struct InspectOptions {
  std::string root = "/";
  ActiveMtuQuery active_mtu;  // empty: the active MTU stays unknown
  ToolRunner tools;           // empty: dcb and ethtool are not run
};

// "/" gets libibverbs and the installed tools; any other root gets neither, because they
// would describe this machine rather than the tree under the root.
InspectOptions inspect_options_for(const std::string& root);

class HostInspector {
 public:
  explicit HostInspector(InspectOptions options)
      : options_(std::move(options)), tree_(options_.root) {}

  HostFacts inspect() const;

 private:
  RdmaDeviceFacts device(const std::string& name) const;
  PortFacts port(const std::string& device, const std::string& port) const;
  std::string netdev_of(const RdmaDeviceFacts& d) const;
  NetdevFacts netdev(const std::string& name) const;
  QosFacts qos(const std::string& netdev) const;
  std::string candidate_netdev() const;
  RxeModule rxe_module(const std::string& kernel) const;

  InspectOptions options_;
  SysfsTree tree_;
};

}  // namespace mr::doctor
