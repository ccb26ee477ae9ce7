#include "reference/testbed/capacity_bound.h"

#include <gtest/gtest.h>

#include "reference/testbed/scenario_catalog.h"

namespace mr::testbed {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(CapacityBoundTest, NonBlockingPermutationIsBoundByTheHostLink) {
  EXPECT_EQ(capacity_bound_ns(permutation(128, 2 * kMiB)), ideal_ns(2 * kMiB, 100e9));
}

// 16 flows from each leaf to one other leaf: six spines at 200 Gb/s, and through each of the
// two spines where the up or the down cable runs at 10%, 20 Gb/s.
TEST(CapacityBoundTest, DegradedSpineCablesLowerTheLeafPairsCapacity) {
  const uint64_t bound = capacity_bound_ns(permutation(128, 2 * kMiB, 8));
  EXPECT_EQ(bound, ideal_ns(16 * 2 * kMiB, 6 * 200e9 + 2 * 20e9));
  EXPECT_GT(bound, ideal_ns(2 * kMiB, 100e9) * 5 / 4);
}

TEST(CapacityBoundTest, IncastIsBoundByTheReceiversLink) {
  EXPECT_EQ(capacity_bound_ns(incast(16, 2 * kMiB)), ideal_ns(16 * 2 * kMiB, 100e9));
}

TEST(CapacityBoundTest, SprayedHostsCountEveryPlane) {
  const Scenario s = plane_failure({.planes = 8, .hosts = 16, .bytes = 8 * kMiB});
  EXPECT_EQ(capacity_bound_ns(s), ideal_ns(8 * kMiB, 800e9));
}

// Hosts 0 and 1 under one leaf each write to hosts 16 and 17 under another: one spine cable
// at 10% and its other spines at full rate make the pair's capacity.
TEST(CapacityBoundTest, SlowCableOnlyCountsOnTheLeafPairsThatUseIt) {
  Scenario s = permutation(32, kMiB, 1);  // leaf 0's cable to spine 0 at 10%
  s.flows = {{.src = 0, .dst = 16, .bytes = kMiB}, {.src = 1, .dst = 17, .bytes = kMiB}};
  EXPECT_EQ(capacity_bound_ns(s), ideal_ns(kMiB, 100e9));  // 200 Gb/s of hosts, 1.42 Tb/s
  s.fabric.faults.degraded.push_back(s.fabric.faults.degraded.front());
  s.fabric.faults.degraded.back().rate_fraction = 0.001;
  for (uint32_t spine = 1; spine < 8; ++spine) {
    s.fabric.faults.degraded.push_back(
        {.cable = {.plane = 0, .tier = io::fabric::CableTier::kSpine, .a = 1, .b = spine},
         .rate_fraction = 0.05});  // leaf 1's other cables at 10 Gb/s: 70 + 0.02 Gb/s to leaf 0
  }
  EXPECT_EQ(capacity_bound_ns(s), ideal_ns(2 * kMiB, 7 * 10e9 + 0.02e9));
}

// A leaf-spine plane beside a single switch: the leaves mean nothing on the other plane, so
// only the hosts' cables bound the flow (both planes' 100 Gb/s), not plane 0's one spine.
TEST(CapacityBoundTest, PlanesOfDifferentShapesCountOnlyTheHostCables) {
  Scenario s = incast(2, kMiB);
  s.flows = {{.src = 0, .dst = 1, .bytes = kMiB}};
  io::fabric::PlaneTopology leaf_spine{.leaves = 2,
                                       .spines = 1,
                                       .hosts_per_leaf = 1,
                                       .host_link = s.fabric.planes[0].host_link,
                                       .spine_link = s.fabric.planes[0].host_link};
  leaf_spine.spine_link.rate_bps = 1'000'000'000;  // 1 Gb/s between the leaves
  s.fabric.planes = {leaf_spine, s.fabric.planes[0]};
  EXPECT_EQ(capacity_bound_ns(s), ideal_ns(kMiB, 200e9));
  s.fabric.planes[1] = leaf_spine;  // one shape again: the slow spine cables bound it
  EXPECT_EQ(capacity_bound_ns(s), ideal_ns(kMiB, 2e9));
}

TEST(CapacityBoundTest, NoFlowsNoBound) {
  Scenario s = incast(4, kMiB);
  s.flows.clear();
  EXPECT_EQ(capacity_bound_ns(s), 0u);
}

}  // namespace
}  // namespace mr::testbed
