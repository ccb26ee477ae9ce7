#include "reference/testbed/scenario_catalog.h"

#include <algorithm>

namespace mr::testbed {
namespace {

using io::fabric::CableRef;
using io::fabric::CableTier;
using io::fabric::LinkParams;
using io::fabric::PlaneTopology;

constexpr LinkParams kHostLink{.rate_bps = 100'000'000'000, .propagation_ns = 1000};

// What the scenarios offer: SACK and out-of-order placement (the core), multipath spraying
// and section 26's congestion window.
wire::Mxcap part_two() {
  wire::Mxcap m;
  m.features = m.features | wire::kMxcapMultipath | wire::kMxcapCc;
  return m;
}

}  // namespace

Scenario plane_failure(const PlaneFailureShape& shape) {
  Scenario s;
  s.name = shape.fail_at_ns ? "plane-failure" : "plane-failure-none";
  s.fabric.endpoints = shape.hosts;
  s.fabric.seed = shape.seed;
  s.fabric.ecn.enabled = true;
  LinkParams spine = kHostLink;
  spine.rate_bps = kHostLink.rate_bps * shape.hosts / 4;
  s.fabric.planes.assign(shape.planes, PlaneTopology{.leaves = 2,
                                                     .spines = 2,
                                                     .hosts_per_leaf = shape.hosts / 2,
                                                     .host_link = kHostLink,
                                                     .spine_link = spine});
  if (shape.fail_at_ns) s.failure = PlaneFailure{.at_ns = *shape.fail_at_ns};
  for (uint32_t i = 0; i < shape.hosts / 2; ++i)
    s.flows.push_back({.src = i, .dst = i + shape.hosts / 2, .bytes = shape.bytes});
  s.mxcap = part_two();
  s.ext.congestion = congestion_for(shape.planes);
  return s;
}

transport::ext::CongestionParameters congestion_for(uint32_t planes) {
  transport::ext::CongestionParameters c;
  c.cwnd_init *= planes;
  c.cwnd_max *= planes;
  return c;
}

Scenario permutation(uint32_t hosts, uint64_t bytes, uint32_t degraded_spine_links, uint64_t seed) {
  Scenario s;
  s.name = degraded_spine_links > 0 ? "permutation-degraded" : "permutation";
  s.fabric.endpoints = hosts;
  s.fabric.seed = seed;
  s.fabric.ecn.enabled = true;
  constexpr uint32_t kHostsPerLeaf = 16;
  constexpr uint32_t kSpines = 8;
  const uint32_t leaves = (hosts + kHostsPerLeaf - 1) / kHostsPerLeaf;
  LinkParams spine = kHostLink;
  spine.rate_bps = kHostLink.rate_bps * kHostsPerLeaf / kSpines;
  s.fabric.planes.assign(1, PlaneTopology{.leaves = leaves,
                                          .spines = kSpines,
                                          .hosts_per_leaf = kHostsPerLeaf,
                                          .host_link = kHostLink,
                                          .spine_link = spine});
  for (uint32_t k = 0; k < degraded_spine_links; ++k) {
    s.fabric.faults.degraded.push_back(
        {.cable = CableRef{0, CableTier::kSpine, k % leaves, (k * 3) % kSpines},
         .rate_fraction = 0.1});
  }
  const uint32_t shift = std::max<uint32_t>(kHostsPerLeaf, hosts / 2) % hosts;
  for (uint32_t i = 0; i < hosts; ++i)
    s.flows.push_back({.src = i, .dst = (i + shift) % hosts, .bytes = bytes});
  s.message_bytes = static_cast<uint32_t>(std::min<uint64_t>(bytes, 1 << 20));
  s.mxcap = part_two();
  return s;
}

Scenario random_loss(double probability, uint64_t bytes, uint64_t seed) {
  Scenario s;
  s.name = "random-loss";
  s.fabric.endpoints = 2;
  s.fabric.seed = seed;
  s.fabric.planes.assign(1, PlaneTopology{.host_link = kHostLink});
  s.fabric.faults.losses.push_back({.probability = probability});
  s.flows.push_back({.src = 0, .dst = 1, .bytes = bytes});
  s.mxcap = part_two();
  return s;
}

Scenario with_trimming(Scenario s) {
  s.fabric.trimming.enabled = true;
  if (s.mxcap) s.mxcap->features = s.mxcap->features | wire::kMxcapTrim;
  return s;
}

Scenario with_credits(Scenario s) {
  if (s.mxcap) s.mxcap->features = s.mxcap->features | wire::kMxcapCredit;
  uint64_t rate_bps = 0;
  for (const PlaneTopology& plane : s.fabric.planes) rate_bps += plane.host_link.rate_bps;
  s.ext.credit.line_rate_mbps = std::max<uint64_t>(1, rate_bps / 1'000'000);
  s.ext.credit.timeout_ns = 1'000'000;
  return s;
}

Scenario incast(uint32_t senders, uint64_t bytes, uint64_t seed) {
  Scenario s;
  s.name = "incast";
  s.fabric.endpoints = senders + 1;
  s.fabric.seed = seed;
  s.fabric.planes.assign(1, PlaneTopology{.host_link = kHostLink});
  s.fabric.ecn.enabled = true;
  for (uint32_t i = 1; i <= senders; ++i) s.flows.push_back({.src = i, .dst = 0, .bytes = bytes});
  s.message_bytes = static_cast<uint32_t>(std::min<uint64_t>(bytes, 1 << 20));
  s.mxcap = part_two();
  return s;
}

}  // namespace mr::testbed
