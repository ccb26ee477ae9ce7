#include "reference/io/fabric/fabric_config.h"

#include <string>

namespace mr::io::fabric {
namespace {

using Result = Expected<void, FabricConfigError>;

Unexpected<FabricConfigError> bad(std::string field, std::string reason) {
  return Unexpected(FabricConfigError{std::move(field), std::move(reason)});
}

std::string indexed(const std::string& name, size_t i) {
  return name + "[" + std::to_string(i) + "]";
}

Result check_link(const LinkParams& link, const std::string& field) {
  if (link.rate_bps == 0) return bad(field + ".rate_bps", "must be positive");
  // Serialization is computed in picoseconds: bytes * 8e12 / rate must not wrap.
  if (link.rate_bps > 10'000'000'000'000ULL) {
    return bad(field + ".rate_bps", "must be at most 10 Tbit/s");
  }
  if (link.queue_bytes == 0) return bad(field + ".queue_bytes", "must be positive");
  if (link.propagation_ns > 1'000'000'000'000ULL) {
    return bad(field + ".propagation_ns", "must be at most 1000 s");
  }
  return {};
}

Result check_plane(const PlaneTopology& plane, uint32_t endpoints, const std::string& field) {
  if (!plane.single_switch()) {
    if (plane.spines == 0) return bad(field + ".spines", "a leaf-spine plane needs a spine");
    if (plane.spines > 4096) return bad(field + ".spines", "must be at most 4096");
    if (plane.hosts_per_leaf == 0) return bad(field + ".hosts_per_leaf", "must be positive");
    if (uint64_t{plane.leaves} * plane.hosts_per_leaf < endpoints) {
      return bad(field + ".leaves",
                 "leaves * hosts_per_leaf = " +
                     std::to_string(uint64_t{plane.leaves} * plane.hosts_per_leaf) +
                     " cannot hold " + std::to_string(endpoints) + " endpoints");
    }
  } else if (plane.spines != 0) {
    return bad(field + ".spines", "a single-switch plane (leaves = 0) has no spines");
  }
  if (auto ok = check_link(plane.host_link, field + ".host_link"); !ok) return ok;
  if (!plane.single_switch()) return check_link(plane.spine_link, field + ".spine_link");
  return {};
}

Result check_cable(const FabricConfig& config, const CableRef& cable, const std::string& field) {
  if (!cable_exists(config, cable)) {
    return bad(field, "names no cable of the topology (plane " + std::to_string(cable.plane) +
                          ", " + (cable.tier == CableTier::kHost ? "host " : "leaf ") +
                          std::to_string(cable.a) +
                          (cable.tier == CableTier::kSpine ? ", spine " + std::to_string(cable.b)
                                                           : std::string()) +
                          ")");
  }
  return {};
}

bool probability(double p) { return p >= 0 && p <= 1; }

Result check_faults(const FabricConfig& config) {
  const FabricFaults& f = config.faults;
  for (size_t i = 0; i < f.black_holes.size(); ++i) {
    const std::string field = indexed("faults.black_holes", i);
    if (f.black_holes[i].plane >= config.planes.size()) {
      return bad(field + ".plane", "no such plane");
    }
    if (const auto& c = f.black_holes[i].cable) {
      if (c->plane != f.black_holes[i].plane) {
        return bad(field + ".cable.plane", "differs from the black hole's plane");
      }
      if (auto ok = check_cable(config, *c, field + ".cable"); !ok) return ok;
    }
  }
  for (size_t i = 0; i < f.flaps.size(); ++i) {
    const std::string field = indexed("faults.flaps", i);
    const LinkFlap& flap = f.flaps[i];
    if (auto ok = check_cable(config, flap.cable, field + ".cable"); !ok) return ok;
    if (flap.up_ns <= flap.down_ns) return bad(field + ".up_ns", "must be after down_ns");
    if (flap.period_ns != 0 && flap.period_ns <= flap.up_ns - flap.down_ns) {
      return bad(field + ".period_ns", "must exceed the down time (up_ns - down_ns)");
    }
  }
  for (size_t i = 0; i < f.degraded.size(); ++i) {
    const std::string field = indexed("faults.degraded", i);
    if (auto ok = check_cable(config, f.degraded[i].cable, field + ".cable"); !ok) return ok;
    const double r = f.degraded[i].rate_fraction;
    if (!(r > 0 && r <= 1)) return bad(field + ".rate_fraction", "must be in (0, 1]");
  }
  for (size_t i = 0; i < f.losses.size(); ++i) {
    const std::string field = indexed("faults.losses", i);
    if (const auto& c = f.losses[i].cable) {
      if (auto ok = check_cable(config, *c, field + ".cable"); !ok) return ok;
    }
    if (!probability(f.losses[i].probability)) {
      return bad(field + ".probability", "must be in [0, 1]");
    }
  }
  return {};
}

}  // namespace

bool cable_exists(const FabricConfig& config, const CableRef& cable) {
  if (cable.plane >= config.planes.size()) return false;
  const PlaneTopology& plane = config.planes[cable.plane];
  if (cable.tier == CableTier::kHost) return cable.a < config.endpoints && cable.b == 0;
  return !plane.single_switch() && cable.a < plane.leaves && cable.b < plane.spines;
}

Expected<void, FabricConfigError> validate_fabric_config(const FabricConfig& config) {
  if (config.endpoints == 0) return bad("endpoints", "must be positive");
  if (config.endpoints > kMaxEndpoints) {
    return bad("endpoints",
               "must be at most " + std::to_string(kMaxEndpoints) + " (the per-plane IPv4 block)");
  }
  if (config.planes.empty()) return bad("planes", "needs at least one plane");
  if (config.planes.size() > kMaxPlanes) {
    return bad("planes", "at most " + std::to_string(kMaxPlanes) + " planes (MXH plane is 4 bits)");
  }
  if (config.addressing.ipv4_base.bytes[3] != 0 ||
      (config.addressing.ipv4_base.bytes[2] & 0x1f) != 0) {
    return bad("addressing.ipv4_base", "must be aligned to 8192 addresses");
  }
  // The last plane's last address must not wrap past 255.255.255.255.
  const uint64_t base = uint64_t{config.addressing.ipv4_base.bytes[0]} << 24 |
                        uint64_t{config.addressing.ipv4_base.bytes[1]} << 16 |
                        uint64_t{config.addressing.ipv4_base.bytes[2]} << 8;
  if (base + config.planes.size() * uint64_t{kIpv4PlaneStride} > (uint64_t{1} << 32)) {
    return bad("addressing.ipv4_base", "leaves no room for every plane's block");
  }
  for (size_t p = 0; p < config.planes.size(); ++p) {
    if (auto ok = check_plane(config.planes[p], config.endpoints, indexed("planes", p)); !ok) {
      return ok;
    }
  }
  const EcnMarking& ecn = config.ecn;
  if (ecn.enabled) {
    if (ecn.kmax_bytes < ecn.kmin_bytes) return bad("ecn.kmax_bytes", "must be at least kmin");
    if (!probability(ecn.max_probability)) {
      return bad("ecn.max_probability", "must be in [0, 1]");
    }
  }
  const Trimming& trim = config.trimming;
  if (trim.enabled) {
    // 64 is the smallest trim size in the field (spec 23); it must keep IPv4 + UDP.
    if (trim.ip_bytes < 64 || trim.ip_bytes > 9000) {
      return bad("trimming.ip_bytes", "must be in [64, 9000]");
    }
    if (trim.dscp > 63) return bad("trimming.dscp", "must be at most 63");
    if (trim.last_hop_dscp > 63) return bad("trimming.last_hop_dscp", "must be at most 63");
    if (trim.never_trim_dscp && *trim.never_trim_dscp > 63) {
      return bad("trimming.never_trim_dscp", "must be at most 63");
    }
    if (trim.priority_queue_bytes == 0) {
      return bad("trimming.priority_queue_bytes", "must be positive");
    }
  }
  if (config.endpoint_tx_queue_bytes == 0) {
    return bad("endpoint_tx_queue_bytes", "must be positive");
  }
  if (config.endpoint_rx_frames == 0) return bad("endpoint_rx_frames", "must be positive");
  return check_faults(config);
}

}  // namespace mr::io::fabric
