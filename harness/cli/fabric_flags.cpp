#include "harness/cli/fabric_flags.h"

#include <cmath>
#include <sstream>

namespace mr::cli {
namespace {

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> parts;
  std::stringstream in(list);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  if (!list.empty() && list.back() == ',') parts.emplace_back();  // getline drops a last ""
  return parts;
}

constexpr uint64_t kMaxQueueKib = uint64_t{1} << 30;
constexpr uint32_t kMaxSwitches = 4096;  // as validate_fabric_config() bounds the spines

Unexpected<std::string> bad(const std::string& flag, const std::string& reason) {
  return Unexpected(flag + ": " + reason);
}

}  // namespace

std::vector<std::vector<std::string>> endpoint_interfaces(const FabricFlags& flags) {
  std::vector<std::vector<std::string>> interfaces;
  for (const std::string& list : flags.endpoints) interfaces.push_back(split_commas(list));
  return interfaces;
}

Expected<io::fabric::FabricConfig, std::string> fabric_config_from(const FabricFlags& flags) {
  const auto interfaces = endpoint_interfaces(flags);
  if (interfaces.size() < 2) {
    return bad("--endpoint", "give at least two (one per host the fabric joins), " +
                                 std::to_string(interfaces.size()) + " given");
  }
  const size_t planes = interfaces[0].size();
  for (size_t e = 0; e < interfaces.size(); ++e) {
    for (const std::string& name : interfaces[e]) {
      if (name.empty()) {
        return bad("--endpoint", "endpoint " + std::to_string(e) + " (\"" + flags.endpoints[e] +
                                     "\") has an empty interface name");
      }
    }
    if (interfaces[e].size() != planes) {
      return bad("--endpoint", "endpoint " + std::to_string(e) + " lists " +
                                   std::to_string(interfaces[e].size()) +
                                   " interfaces and endpoint 0 lists " + std::to_string(planes) +
                                   ": every endpoint has one port per plane");
    }
  }
  if (!(flags.rate_gbps > 0) || flags.rate_gbps > 100'000) {
    return bad("--rate-gbps", "must be above 0 and at most 100000");
  }
  if (!(flags.delay_us >= 0) || flags.delay_us > 10'000'000) {
    return bad("--delay-us", "must be between 0 and 10000000 (10 s)");
  }
  if (flags.queue_kib == 0 || flags.queue_kib > kMaxQueueKib) {
    return bad("--queue-kib", "must be between 1 and " + std::to_string(kMaxQueueKib) + " (1 TiB)");
  }
  if (flags.leaves > kMaxSwitches) {
    return bad("--leaves", "must be at most " + std::to_string(kMaxSwitches));
  }
  if (!(flags.loss_percent >= 0) || flags.loss_percent > 100) {
    return bad("--loss", "must be a percentage between 0 and 100");
  }
  if (flags.leaves > 0 && flags.spines == 0) {
    return bad("--spines", "a leaf-spine fabric (--leaves " + std::to_string(flags.leaves) +
                               ") needs at least one spine");
  }
  if (flags.leaves == 0 && flags.spines > 0) {
    return bad("--leaves", "--spines needs leaves to join (--leaves 0 is one switch)");
  }

  io::fabric::FabricConfig config;
  config.endpoints = static_cast<uint32_t>(interfaces.size());
  config.seed = flags.seed;
  config.addressing.shared = true;
  const io::fabric::LinkParams cable{
      .rate_bps = static_cast<uint64_t>(std::llround(flags.rate_gbps * 1e9)),
      .propagation_ns = static_cast<uint64_t>(std::llround(flags.delay_us * 1e3)),
      .queue_bytes = flags.queue_kib * 1024};
  io::fabric::PlaneTopology plane{.host_link = cable, .spine_link = cable};
  if (flags.leaves > 0) {
    plane.leaves = flags.leaves;
    plane.spines = flags.spines;
    plane.hosts_per_leaf = (config.endpoints + flags.leaves - 1) / flags.leaves;
  }
  config.planes.assign(planes, plane);
  config.ecn.enabled = flags.ecn;
  config.trimming.enabled = flags.trim;
  if (flags.loss_percent > 0) {
    config.faults.losses.push_back({.probability = flags.loss_percent / 100});
  }
  if (flags.ipv6_ecmp == "flow") {
    config.ipv6_ecmp = io::fabric::Ipv6EcmpKey::kFlowLabel;
  } else if (flags.ipv6_ecmp == "ports") {
    config.ipv6_ecmp = io::fabric::Ipv6EcmpKey::kPorts;
  } else {
    return bad("--ipv6-ecmp", "\"" + flags.ipv6_ecmp + "\" is neither flow nor ports");
  }
  if (auto valid = io::fabric::validate_fabric_config(config); !valid) {
    return Unexpected("the fabric: " + valid.error().to_string());
  }
  return config;
}

}  // namespace mr::cli
