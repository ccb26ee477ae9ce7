#include "reference/testbed/capacity_bound.h"

#include <algorithm>
#include <map>
#include <utility>

#include "reference/io/fabric/link_faults.h"

namespace mr::testbed {
namespace {

using io::fabric::CableRef;
using io::fabric::CableTier;

// A cable's rate with its degradations applied as the fabric applies them (both directions
// run at it; the loss stream is not drawn from).
double rate_bps(const io::fabric::FabricConfig& fabric, const CableRef& cable, uint64_t rate) {
  return static_cast<double>(rate) * io::fabric::link_faults(fabric, cable, 0).rate_fraction;
}

// Bytes that must cross each cut: keyed by what the cut is.
struct Demand {
  std::map<uint32_t, uint64_t> host_out, host_in;
  std::map<uint32_t, uint64_t> leaf_out, leaf_in;  // leaf-spine traffic of a leaf
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> leaf_pair;
};

double seconds(uint64_t bytes, double rate_bps) {
  return rate_bps > 0 ? static_cast<double>(bytes) * 8.0 / rate_bps : 0.0;
}

}  // namespace

uint64_t capacity_bound_ns(const Scenario& s) {
  const io::fabric::FabricConfig& fabric = s.fabric;
  if (fabric.planes.empty()) return 0;
  // The leaf cuts need a host's leaf to be the same on every plane: planes of one shape (as
  // in every scenario of the catalog). Otherwise only the host cuts count, still a bound.
  const io::fabric::PlaneTopology& shape = fabric.planes.front();
  const bool same_shape = std::ranges::all_of(fabric.planes, [&](const auto& p) {
    return p.leaves == shape.leaves && p.hosts_per_leaf == shape.hosts_per_leaf;
  });
  const bool leaves = same_shape && !shape.single_switch() && shape.hosts_per_leaf > 0;
  Demand d;
  for (const Flow& f : s.flows) {
    const uint32_t from = f.src, to = f.dst;
    d.host_out[from] += f.bytes;
    d.host_in[to] += f.bytes;
    if (!leaves) continue;
    const uint32_t a = from / shape.hosts_per_leaf, b = to / shape.hosts_per_leaf;
    if (a == b) continue;
    d.leaf_out[a] += f.bytes;
    d.leaf_in[b] += f.bytes;
    d.leaf_pair[{a, b}] += f.bytes;
  }
  double worst = 0;
  // A host's cables over every plane.
  auto host_rate = [&](uint32_t host) {
    double r = 0;
    for (uint32_t p = 0; p < fabric.planes.size(); ++p)
      r += rate_bps(fabric, CableRef{p, CableTier::kHost, host, 0},
                    fabric.planes[p].host_link.rate_bps);
    return r;
  };
  for (const auto* direction : {&d.host_out, &d.host_in})
    for (const auto& [host, bytes] : *direction)
      worst = std::max(worst, seconds(bytes, host_rate(host)));
  if (leaves) {
    auto spine_rate = [&](uint32_t p, uint32_t leaf, uint32_t spine) {
      return rate_bps(fabric, CableRef{p, CableTier::kSpine, leaf, spine},
                      fabric.planes[p].spine_link.rate_bps);
    };
    auto leaf_rate = [&](uint32_t leaf) {
      double r = 0;
      for (uint32_t p = 0; p < fabric.planes.size(); ++p)
        for (uint32_t sp = 0; sp < fabric.planes[p].spines; ++sp) r += spine_rate(p, leaf, sp);
      return r;
    };
    for (const auto* direction : {&d.leaf_out, &d.leaf_in})
      for (const auto& [leaf, bytes] : *direction)
        worst = std::max(worst, seconds(bytes, leaf_rate(leaf)));
    // Leaf a to leaf b: each spine carries at most the slower of a's up and b's down cable.
    for (const auto& [pair, bytes] : d.leaf_pair) {
      double r = 0;
      for (uint32_t p = 0; p < fabric.planes.size(); ++p)
        for (uint32_t sp = 0; sp < fabric.planes[p].spines; ++sp)
          r += std::min(spine_rate(p, pair.first, sp), spine_rate(p, pair.second, sp));
      worst = std::max(worst, seconds(bytes, r));
    }
  }
  return static_cast<uint64_t>(worst * 1e9);
}

}  // namespace mr::testbed
