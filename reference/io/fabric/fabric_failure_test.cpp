// Seeded faults: black-holed planes and cables, link flaps, random loss; frames the
// fabric cannot route; and the determinism of a whole run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "reference/io/fabric/fabric.h"
#include "reference/io/fabric/fabric_test_frames.h"
#include "reference/io/fabric/seeded_random.h"

namespace mr::io::fabric {
namespace {

size_t drain(Link& link) {
  std::vector<Frame> in(512);
  size_t total = 0;
  for (int i = 0; i < 1000; ++i) {  // bounded: a port holds at most endpoint_rx_frames
    const size_t n = link.receive_burst(in, 0);
    total += n;
    if (n == 0) break;
  }
  return total;
}

FabricConfig two_planes_leaf_spine() {
  FabricConfig c{.endpoints = 4, .seed = 5};
  c.planes.assign(2, PlaneTopology{.leaves = 2, .spines = 2, .hosts_per_leaf = 2});
  return c;
}

TEST(FabricFailure, BlackHoledPlaneDropsEveryFrameOnItAndNoneElsewhere) {
  VirtualClock clock;
  FabricConfig config = two_planes_leaf_spine();
  config.faults.black_holes.push_back({.plane = 1});
  auto fabric = Fabric::create(clock, config).value();
  for (uint32_t plane : {0U, 1U}) {
    std::vector<Frame> burst;
    for (uint16_t i = 0; i < 10; ++i) {
      burst.push_back(
          test_frame(config, {.plane = plane, .src = 0, .dst = 3, .sport = uint16_t(0xc000 + i)}));
    }
    ASSERT_EQ(fabric->port(plane, 0).send_burst(burst), 10U);
  }
  run_to_quiet(*fabric, clock);
  EXPECT_EQ(drain(fabric->port(0, 3)), 10U);
  EXPECT_EQ(drain(fabric->port(1, 3)), 0U);
  EXPECT_EQ(fabric->plane_counters(0).dropped(), 0U);
  EXPECT_EQ(fabric->plane_counters(1).dropped(DropCause::kBlackHole), 10U);
  EXPECT_EQ(fabric->plane_counters(1).dropped(), 10U);
  EXPECT_TRUE(fabric->port(0, 0).link_up());
  EXPECT_FALSE(fabric->port(1, 0).link_up());
}

TEST(FabricFailure, APlaneBlackHoledMidRunPassesWhatCameBeforeAndDropsWhatComesAfter) {
  VirtualClock clock;
  FabricConfig config = two_planes_leaf_spine();
  config.faults.black_holes.push_back({.plane = 1, .from_ns = 1'000'000});
  auto fabric = Fabric::create(clock, config).value();
  auto send_ten = [&] {
    std::vector<Frame> burst;
    for (uint16_t i = 0; i < 10; ++i)
      burst.push_back(test_frame(config, {.plane = 1, .src = 0, .dst = 3, .sport = 0xc000}));
    ASSERT_EQ(fabric->port(1, 0).send_burst(burst), 10U);
    run_to_quiet(*fabric, clock);
  };
  send_ten();
  EXPECT_EQ(drain(fabric->port(1, 3)), 10U);
  EXPECT_TRUE(fabric->port(1, 0).link_up());
  clock.set(1'000'000);
  send_ten();
  EXPECT_EQ(drain(fabric->port(1, 3)), 0U);
  EXPECT_EQ(fabric->plane_counters(1).dropped(DropCause::kBlackHole), 10U);
  EXPECT_FALSE(fabric->port(1, 0).link_up());
}

TEST(FabricFailure, ABlackHoleAddedWhileRunningActsAsAConfiguredOne) {
  VirtualClock clock;
  FabricConfig config = two_planes_leaf_spine();
  auto fabric = Fabric::create(clock, config).value();
  const auto bad = fabric->add_black_hole({.plane = 7});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "faults.black_holes[0].plane");
  ASSERT_TRUE(fabric->add_black_hole({.plane = 1, .from_ns = 500}));
  EXPECT_TRUE(fabric->port(1, 0).link_up());
  clock.set(500);
  std::vector<Frame> burst{test_frame(config, {.plane = 1, .src = 0, .dst = 3, .sport = 0xc000})};
  ASSERT_EQ(fabric->port(1, 0).send_burst(burst), 1U);
  run_to_quiet(*fabric, clock);
  EXPECT_EQ(drain(fabric->port(1, 3)), 0U);
  EXPECT_EQ(fabric->plane_counters(1).dropped(DropCause::kBlackHole), 1U);
  EXPECT_FALSE(fabric->port(1, 0).link_up());
}

TEST(FabricReadyPorts, OnlyThePortsThatReceivedAreListedEachOnce) {
  VirtualClock clock;
  FabricConfig config = two_planes_leaf_spine();
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> burst;
  for (uint16_t i = 0; i < 3; ++i)
    burst.push_back(test_frame(config, {.plane = 1, .src = 0, .dst = 2, .sport = 0xc000}));
  ASSERT_EQ(fabric->port(1, 0).send_burst(burst), 3U);
  ASSERT_EQ(fabric->port(0, 3).send_burst(std::vector<Frame>{
                test_frame(config, {.plane = 0, .src = 3, .dst = 1, .sport = 0xc001})}),
            1U);
  EXPECT_TRUE(fabric->take_ready_ports().empty());
  run_to_quiet(*fabric, clock);
  auto ready = fabric->take_ready_ports();
  std::sort(ready.begin(), ready.end());
  EXPECT_EQ(ready, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}, {1, 2}}));
  EXPECT_TRUE(fabric->take_ready_ports().empty());
  EXPECT_EQ(drain(fabric->port(1, 2)), 3U);
}

TEST(FabricFailure, BlackHoledSpineCableDropsOnlyTheFlowsHashedOntoIt) {
  VirtualClock clock;
  FabricConfig config = two_planes_leaf_spine();
  const CableRef dead{0, CableTier::kSpine, 0, 1};
  config.faults.black_holes.push_back({.plane = 0, .cable = dead});
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> burst;
  for (uint16_t i = 0; i < 64; ++i) {
    burst.push_back(test_frame(config, {.src = 0, .dst = 3, .sport = uint16_t(0xc000 + i)}));
  }
  ASSERT_EQ(fabric->port(0, 0).send_burst(burst), 64U);
  run_to_quiet(*fabric, clock);
  const uint64_t dropped =
      fabric->counters(dead, LinkDirection::kUp).dropped(DropCause::kBlackHole);
  const size_t arrived = drain(fabric->port(0, 3));
  EXPECT_GT(dropped, 0U);
  EXPECT_GT(arrived, 0U);
  EXPECT_EQ(arrived + dropped, 64U);
  EXPECT_EQ(fabric->plane_counters(0).dropped(), dropped);
}

// One frame every microsecond from endpoint 0 to 1 for 30 us; returns which were lost.
std::vector<bool> lost_while_flapping(const LinkFlap& flap) {
  VirtualClock clock;
  FabricConfig config{.endpoints = 2};
  config.faults.flaps.push_back(flap);
  auto fabric = Fabric::create(clock, config).value();
  std::vector<bool> lost;
  for (uint32_t i = 0; i < 30; ++i) {
    const uint64_t before = fabric->plane_counters(0).dropped(DropCause::kLinkDown);
    EXPECT_EQ(fabric->port(0, 0).send_burst(std::vector<Frame>{test_frame(config, {.psn = i})}),
              1U);
    // The frame reaches the switch 586 ns after it is sent: its fate is known within 1 us.
    run_to_quiet(*fabric, clock, uint64_t{i + 1} * 1000);
    lost.push_back(fabric->plane_counters(0).dropped(DropCause::kLinkDown) > before);
  }
  run_to_quiet(*fabric, clock);
  size_t lost_count = 0;
  for (bool l : lost) lost_count += l;
  EXPECT_EQ(drain(fabric->port(0, 1)), 30 - lost_count);
  return lost;
}

TEST(FabricFailure, LinkFlapDropsDuringTheDownWindowOnly) {
  const std::vector<bool> lost = lost_while_flapping(
      {.cable = {0, CableTier::kHost, 0, 0}, .down_ns = 10'000, .up_ns = 20'000});
  for (uint32_t i = 0; i < 30; ++i)
    EXPECT_EQ(lost[i], i >= 10 && i < 20) << "frame at " << i << " us";
}

TEST(FabricFailure, PeriodicFlapRepeatsItsDownWindow) {
  const std::vector<bool> lost = lost_while_flapping(
      {.cable = {0, CableTier::kHost, 1, 0}, .down_ns = 0, .up_ns = 2'000, .period_ns = 10'000});
  for (uint32_t i = 0; i < 30; ++i) EXPECT_EQ(lost[i], i % 10 < 2) << "frame at " << i << " us";
}

TEST(FabricFailure, PortReportsItsLinkDownDuringAFlap) {
  VirtualClock clock;
  FabricConfig config{.endpoints = 2};
  config.faults.flaps.push_back(
      {.cable = {0, CableTier::kHost, 0, 0}, .down_ns = 1'000, .up_ns = 2'000});
  auto fabric = Fabric::create(clock, config).value();
  EXPECT_TRUE(fabric->port(0, 0).link_up());
  clock.set(1'500);
  EXPECT_FALSE(fabric->port(0, 0).link_up());
  EXPECT_TRUE(fabric->port(0, 1).link_up());
  clock.set(2'000);
  EXPECT_TRUE(fabric->port(0, 0).link_up());
}

struct LossRun {
  uint64_t lost = 0;
  uint64_t survivors_hash = 0;  // which PSNs arrived
};

LossRun random_loss(uint64_t seed, uint32_t frames) {
  VirtualClock clock;
  FabricConfig config{.endpoints = 2, .seed = seed};
  config.faults.losses.push_back(
      {.cable = CableRef{0, CableTier::kHost, 0, 0}, .probability = 0.01});
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> burst;
  for (uint32_t i = 0; i < 1000; ++i) burst.push_back(test_frame(config, {.frame_bytes = 64}));
  LossRun run;
  std::vector<Frame> in(1000);
  for (uint32_t sent = 0; sent < frames; sent += 1000) {
    for (uint32_t i = 0; i < 1000; ++i) burst[i].bytes[14 + 20 + 8 + 11] = uint8_t(i);
    EXPECT_EQ(fabric->port(0, 0).send_burst(burst), 1000U);
    run_to_quiet(*fabric, clock);
    const size_t n = fabric->port(0, 1).receive_burst(in, 0);
    for (size_t i = 0; i < n; ++i) {
      run.survivors_hash = mix64(run.survivors_hash ^ (uint64_t{sent} << 8 | in[i].bytes[53]));
    }
  }
  run.lost = fabric->plane_counters(0).dropped(DropCause::kRandomLoss);
  EXPECT_EQ(fabric->plane_counters(0).dropped(), run.lost);
  return run;
}

TEST(FabricFailure, RandomLossFollowsTheBinomialAndReplaysWithItsSeed) {
  constexpr uint32_t kFrames = 100'000;
  const LossRun a = random_loss(11, kFrames);
  // Binomial(100000, 0.01): mean 1000, standard deviation 31.5; five of them either side.
  const double sd = std::sqrt(kFrames * 0.01 * 0.99);
  EXPECT_GT(static_cast<double>(a.lost), 1000 - 5 * sd);
  EXPECT_LT(static_cast<double>(a.lost), 1000 + 5 * sd);
  const LossRun again = random_loss(11, kFrames);
  EXPECT_EQ(again.lost, a.lost);
  EXPECT_EQ(again.survivors_hash, a.survivors_hash);
  const LossRun other = random_loss(12, kFrames);
  EXPECT_NE(other.survivors_hash, a.survivors_hash);
}

TEST(FabricFailure, GarbageAndMisaddressedFramesAreCountedUnroutable) {
  VirtualClock clock;
  FabricConfig config{.endpoints = 2};
  config.planes.assign(2, PlaneTopology{});
  auto fabric = Fabric::create(clock, config).value();
  const Frame good = test_frame(config, {.src = 0, .dst = 1});
  std::vector<Frame> bad;
  bad.push_back(Frame{});
  bad.push_back(Frame{{0x01, 0x02, 0x03, 0x04, 0x05}, 0});
  bad.push_back(Frame{std::vector<uint8_t>(good.bytes.begin(), good.bytes.begin() + 30), 0});
  Frame arp = good;
  arp.bytes[13] = 0x06;
  bad.push_back(arp);
  Frame short_ihl = good;
  short_ihl.bytes[14] = 0x42;
  bad.push_back(short_ihl);
  bad.push_back(test_frame(config, {.plane = 1, .src = 0, .dst = 1}));  // plane 1's address
  Frame nowhere = good;
  nowhere.bytes[33] = 200;  // 198.18.0.200: no such endpoint
  bad.push_back(nowhere);
  Frame v6 = test_frame(config, {.ipv6 = true});
  v6.bytes.resize(50);
  bad.push_back(v6);
  SeededRandom random(3);
  for (int i = 0; i < 100; ++i) {
    Frame noise;
    noise.bytes.resize(random.next() % 200);
    for (uint8_t& b : noise.bytes) b = static_cast<uint8_t>(random.next());
    bad.push_back(noise);
  }
  ASSERT_EQ(fabric->port(0, 0).send_burst(bad), bad.size());
  run_to_quiet(*fabric, clock);
  EXPECT_EQ(fabric->plane_counters(0).dropped(DropCause::kUnroutable), bad.size());
  EXPECT_EQ(drain(fabric->port(0, 1)), 0U);
  // The fabric still forwards afterwards.
  ASSERT_EQ(fabric->port(0, 0).send_burst(std::vector<Frame>{good}), 1U);
  run_to_quiet(*fabric, clock);
  EXPECT_EQ(drain(fabric->port(0, 1)), 1U);
}

// Many flows over a congested, lossy, trimming, marking leaf-spine: the trace hash and the
// counters of two runs with one seed are equal, and another seed changes them.
struct BusyRun {
  uint64_t trace_hash = 0;
  LinkCounters plane0;
  uint64_t events = 0;
};

BusyRun busy_run(uint64_t seed) {
  VirtualClock clock;
  FabricConfig config{.endpoints = 8, .seed = seed};
  config.planes.assign(2, PlaneTopology{.leaves = 2,
                                        .spines = 2,
                                        .hosts_per_leaf = 4,
                                        .host_link = {.queue_bytes = 16 * 1024},
                                        .spine_link = {.queue_bytes = 16 * 1024}});
  config.ecn = {.enabled = true, .kmin_bytes = 2'000, .kmax_bytes = 12'000, .max_probability = 0.5};
  config.trimming = {.enabled = true};
  config.faults.losses.push_back({.probability = 0.001});
  auto fabric = Fabric::create(clock, config).value();
  SeededRandom traffic(99);  // the same traffic for every fabric seed
  std::vector<Frame> in(256);
  for (uint32_t round = 0; round < 50; ++round) {
    for (uint32_t e = 0; e < 8; ++e) {
      for (uint32_t plane = 0; plane < 2; ++plane) {
        std::vector<Frame> burst;
        burst.reserve(4);
        for (int k = 0; k < 4; ++k) {
          burst.push_back(test_frame(config, {.plane = plane,
                                              .src = e,
                                              .dst = uint32_t(traffic.next() % 8),
                                              .sport = uint16_t(0xc000 | traffic.next()),
                                              .frame_bytes = 4096}));
        }
        (void)fabric->port(plane, e).send_burst(burst);
      }
    }
    run_to_quiet(*fabric, clock, clock.now_ns() + 2'000);
    for (uint32_t e = 0; e < 8; ++e) {
      for (uint32_t plane = 0; plane < 2; ++plane)
        (void)fabric->port(plane, e).receive_burst(in, 0);
    }
  }
  run_to_quiet(*fabric, clock);
  return {fabric->trace_hash(), fabric->plane_counters(0), fabric->events_run()};
}

TEST(FabricDeterminism, TwoRunsWithOneSeedHaveTheSameEventTrace) {
  const BusyRun a = busy_run(2026);
  const BusyRun b = busy_run(2026);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.plane0, b.plane0);
  // The scenario exercises what it claims to.
  EXPECT_GT(a.plane0.ecn_marked, 0U);
  EXPECT_GT(a.plane0.trimmed, 0U);
  EXPECT_GT(a.plane0.dropped(DropCause::kRandomLoss), 0U);
  const BusyRun c = busy_run(2027);
  EXPECT_NE(c.trace_hash, a.trace_hash);
}

}  // namespace
}  // namespace mr::io::fabric
