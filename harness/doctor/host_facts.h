// File: host_facts.h
//
// What HostInspector saw on a host, before any judgement: the RDMA devices with their
// ports and GID tables (ibv_devinfo, ibstatus, show_gids), which netdev each sits on
// (ibdev2netdev), those netdevs' MTU, state and QoS (ethtool, dcb), and the host's ECN
// settings. judge.h turns this into findings; host_facts_json.h into the report's facts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mr::doctor {

struct GidEntry {
  uint32_t index = 0;
  std::string gid;     // compact IPv6 text: "::ffff:198.18.0.2", "fe80::1"
  std::string type;    // as sysfs names it: "RoCE v2", "IB/RoCE v1"
  std::string netdev;  // gid_attrs/ndevs/<i>; empty when the kernel gives none
};

struct PortFacts {
  uint32_t port = 0;
  std::string state;       // "ACTIVE", "DOWN", ... (sysfs "4: ACTIVE" without the number)
  std::string phys_state;  // "LinkUp", "Disabled", ...
  std::string link_layer;  // "Ethernet" or "InfiniBand"
  // Not in sysfs: ibv_query_port reports it; nullopt when no verbs query could be made.
  std::optional<uint32_t> active_mtu;
  std::vector<GidEntry> gids;  // the valid (non-zero) entries only
};

struct RdmaDeviceFacts {
  std::string name;  // "rxe0", "mlx5_0"
  std::string node_type;
  std::string fw_ver;
  std::string netdev;  // the Ethernet netdev under it; empty when none was found
  std::vector<PortFacts> ports;
};

// What one external tool said. kNotRun when the inspection is of a tree that is not the
// live host (tests, --root), where running tools would describe the wrong machine.
enum class ToolStatus { kNotRun, kAbsent, kFailed, kOk };

struct ToolProbe {
  std::string command;  // "dcb pfc show dev eth0"
  ToolStatus status = ToolStatus::kNotRun;
  std::string text;  // standard output when kOk, the error otherwise
};

struct QosFacts {
  ToolProbe pfc;                                // dcb pfc show dev X
  ToolProbe app;                                // dcb -N app show dev X
  ToolProbe ets;                                // dcb ets show dev X (recorded, not judged)
  ToolProbe offload;                            // ethtool -k X
  std::vector<uint32_t> pfc_priorities;         // priorities with PFC on
  std::map<uint32_t, uint32_t> dscp_prio;       // DSCP -> priority (DSCP trust)
  std::map<std::string, std::string> features;  // ethtool -k: "rx-checksumming" -> "on [fixed]"
};

struct NetdevFacts {
  std::string name;
  bool present = false;  // /sys/class/net/<name> exists
  std::optional<uint32_t> mtu;
  std::string address;
  std::string operstate;  // "up", "down", "unknown"
  // /sys/class/net/<if>/ecn/<roce_np|roce_rp>/enable/<prio> (mlx5 style), when exposed.
  std::map<std::string, std::map<uint32_t, bool>> roce_ecn;
  // /proc/sys/net/ipv4/conf/<if>/{rp_filter,arp_ignore,arp_announce}
  std::map<std::string, std::string> sysctl;
  QosFacts qos;
};

// Whether this kernel can give a Soft-RoCE device: what the "no RDMA device" remedy says.
enum class RxeModule {
  kUnknown,    // the kernel release is unknown
  kLoaded,     // /sys/module/rdma_rxe
  kAvailable,  // under /lib/modules/<release>, as a module or built in
  kMissing,    // /lib/modules/<release> exists without it
  kNoModules,  // /lib/modules/<release> does not exist: modprobe can load nothing
};

struct HostFacts {
  std::string root;  // "/" for the live host
  std::string hostname;
  std::string kernel;  // /proc/sys/kernel/osrelease
  std::vector<RdmaDeviceFacts> devices;
  std::vector<NetdevFacts> netdevs;  // the netdevs under RDMA devices, once each
  std::optional<int> tcp_ecn;        // /proc/sys/net/ipv4/tcp_ecn
  RxeModule rxe_module = RxeModule::kUnknown;
  // A netdev that is up, not loopback: what the "add an rxe device" remedy names.
  std::string candidate_netdev;
};

}  // namespace mr::doctor
