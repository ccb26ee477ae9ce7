// ECMP at the leaves hashes the flow fields, so the entropy value a sender writes into the
// UDP source port (or the IPv6 flow label) picks the spine, as in a real fabric.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "reference/io/fabric/fabric.h"
#include "reference/io/fabric/fabric_test_frames.h"

namespace mr::io::fabric {
namespace {

constexpr uint32_t kSpines = 4;

FabricConfig leaf_spine(Ipv6EcmpKey key = Ipv6EcmpKey::kFlowLabel) {
  FabricConfig c{.endpoints = 8, .ipv6_ecmp = key, .seed = 42};
  c.planes = {PlaneTopology{.leaves = 2, .spines = kSpines, .hosts_per_leaf = 4}};
  return c;
}

std::vector<uint64_t> frames_per_spine(const Fabric& fabric) {
  std::vector<uint64_t> n;
  for (uint32_t s = 0; s < kSpines; ++s) {
    n.push_back(fabric.counters({0, CableTier::kSpine, 0, s}, LinkDirection::kUp).frames_sent);
  }
  return n;
}

size_t delivered(Fabric& fabric, uint32_t endpoint) {
  std::vector<Frame> in(256);
  return fabric.port(0, endpoint).receive_burst(in, 0);
}

// Every spine used, none far from the mean. The bound is about four standard deviations
// of a fair hash (Binomial(total, 1/4)): 4 to 28 of 64, 870 to 1178 of 4096.
void expect_spread_over_all_spines(const std::vector<uint64_t>& counts, uint64_t total) {
  const double mean = static_cast<double>(total) / kSpines;
  const double slack = 4 * std::sqrt(mean * (1 - 1.0 / kSpines));
  uint64_t sum = 0;
  for (uint64_t c : counts) {
    EXPECT_GT(c, 0U) << "spine starved";
    EXPECT_NEAR(static_cast<double>(c), mean, slack);
    sum += c;
  }
  EXPECT_EQ(sum, total);
}

TEST(FabricEcmp, TheSameFiveTupleAlwaysTakesTheSameSpine) {
  VirtualClock clock;
  const FabricConfig config = leaf_spine();
  auto fabric = Fabric::create(clock, config).value();
  const std::vector<Frame> burst(20, test_frame(config, {.src = 1, .dst = 6, .sport = 0xc0de}));
  ASSERT_EQ(fabric->port(0, 1).send_burst(burst), 20U);
  run_to_quiet(*fabric, clock);
  const std::vector<uint64_t> counts = frames_per_spine(*fabric);
  EXPECT_EQ(std::count(counts.begin(), counts.end(), 20U), 1);
  EXPECT_EQ(std::count(counts.begin(), counts.end(), 0U), kSpines - 1);
  EXPECT_EQ(delivered(*fabric, 6), 20U);
}

TEST(FabricEcmp, SixtyFourSourcePortsSpreadOverEverySpine) {
  VirtualClock clock;
  const FabricConfig config = leaf_spine();
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> burst;
  for (uint16_t i = 0; i < 64; ++i) {
    burst.push_back(test_frame(config, {.src = 0, .dst = 5, .sport = uint16_t(0xc000 + i)}));
  }
  ASSERT_EQ(fabric->port(0, 0).send_burst(burst), 64U);
  run_to_quiet(*fabric, clock);
  expect_spread_over_all_spines(frames_per_spine(*fabric), 64);
  EXPECT_EQ(delivered(*fabric, 5), 64U);
}

TEST(FabricEcmp, ManySourcePortsBalanceTheSpinesClosely) {
  VirtualClock clock;
  FabricConfig config = leaf_spine();
  config.planes[0].host_link.queue_bytes = 64 * 1024 * 1024;
  config.planes[0].spine_link.queue_bytes = 64 * 1024 * 1024;
  config.endpoint_rx_frames = 8192;
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> burst;
  for (uint32_t i = 0; i < 4096; ++i) {
    burst.push_back(
        test_frame(config, {.src = 2, .dst = 7, .sport = uint16_t(0xc000 | i), .frame_bytes = 64}));
  }
  ASSERT_EQ(fabric->port(0, 2).send_burst(burst), 4096U);
  run_to_quiet(*fabric, clock);
  expect_spread_over_all_spines(frames_per_spine(*fabric), 4096);
}

TEST(FabricEcmp, Ipv6FlowLabelsSpreadAndPortsDoNotWhenHashingTheFlowLabel) {
  VirtualClock clock;
  const FabricConfig config = leaf_spine(Ipv6EcmpKey::kFlowLabel);
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> by_label;
  std::vector<Frame> by_port;
  for (uint32_t i = 0; i < 64; ++i) {
    // Spec 20.2, EV mode FLOW: flow label = (plane << 16) | EV.
    by_label.push_back(
        test_frame(config, {.src = 0, .dst = 5, .ipv6 = true, .flow_label = 0xc000 + i}));
    by_port.push_back(test_frame(
        config,
        {.src = 0, .dst = 5, .sport = uint16_t(0xc000 + i), .ipv6 = true, .flow_label = 9}));
  }
  ASSERT_EQ(fabric->port(0, 0).send_burst(by_label), 64U);
  run_to_quiet(*fabric, clock);
  expect_spread_over_all_spines(frames_per_spine(*fabric), 64);
  const std::vector<uint64_t> before = frames_per_spine(*fabric);
  ASSERT_EQ(fabric->port(0, 0).send_burst(by_port), 64U);
  run_to_quiet(*fabric, clock);
  const std::vector<uint64_t> after = frames_per_spine(*fabric);
  int spines_used = 0;
  for (uint32_t s = 0; s < kSpines; ++s) spines_used += after[s] != before[s];
  EXPECT_EQ(spines_used, 1);
}

TEST(FabricEcmp, Ipv6PortsSpreadWhenTheSwitchHashesPorts) {
  VirtualClock clock;
  const FabricConfig config = leaf_spine(Ipv6EcmpKey::kPorts);
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> burst;
  for (uint32_t i = 0; i < 64; ++i) {
    burst.push_back(test_frame(
        config,
        {.src = 0, .dst = 5, .sport = uint16_t(0xc000 + i), .ipv6 = true, .flow_label = 9}));
  }
  ASSERT_EQ(fabric->port(0, 0).send_burst(burst), 64U);
  run_to_quiet(*fabric, clock);
  expect_spread_over_all_spines(frames_per_spine(*fabric), 64);
}

TEST(FabricEcmp, AnotherSeedMapsFlowsToOtherSpines) {
  std::vector<std::vector<uint64_t>> per_seed;
  for (uint64_t seed : {1, 2}) {
    VirtualClock clock;
    FabricConfig config = leaf_spine();
    config.seed = seed;
    auto fabric = Fabric::create(clock, config).value();
    std::vector<Frame> burst;
    for (uint16_t i = 0; i < 8; ++i) {
      burst.push_back(test_frame(config, {.src = 0, .dst = 5, .sport = uint16_t(0xc000 + i)}));
    }
    ASSERT_EQ(fabric->port(0, 0).send_burst(burst), 8U);
    run_to_quiet(*fabric, clock);
    per_seed.push_back(frames_per_spine(*fabric));
  }
  EXPECT_NE(per_seed[0], per_seed[1]);
}

}  // namespace
}  // namespace mr::io::fabric
