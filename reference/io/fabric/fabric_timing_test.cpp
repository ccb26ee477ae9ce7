// Arrival times through the fabric are exact: serialization (bytes * 8 / rate) plus
// propagation on every hop, in picoseconds, delivered at the next whole nanosecond.
#include <gtest/gtest.h>

#include <vector>

#include "reference/io/fabric/fabric.h"
#include "reference/io/fabric/fabric_test_frames.h"

namespace mr::io::fabric {
namespace {

constexpr uint64_t kRate100G = 100'000'000'000;
constexpr uint64_t kRate400G = 400'000'000'000;
// RoCEv2 frames are 2 mod 4 bytes long; this one takes 327.52 ns at 100 Gbit/s.
constexpr uint32_t kFrame = 4094;

std::vector<Frame> receive_all(Link& link) {
  std::vector<Frame> out(64);
  out.resize(link.receive_burst(out, 0));
  return out;
}

FabricConfig one_switch(uint32_t endpoints) {
  FabricConfig c{.endpoints = endpoints};
  c.planes = {PlaneTopology{.host_link = {.rate_bps = kRate100G, .propagation_ns = 500}}};
  return c;
}

TEST(FabricTiming, OneSwitchAddsSerializationAndPropagationPerHop) {
  VirtualClock clock;
  const FabricConfig config = one_switch(2);
  auto fabric = Fabric::create(clock, config).value();
  const Frame f = test_frame(config, {.src = 0, .dst = 1, .frame_bytes = kFrame});
  ASSERT_EQ(f.bytes.size(), kFrame);
  const std::vector<Frame> burst = {f, f};
  ASSERT_EQ(fabric->port(0, 0).send_burst(burst), 2U);
  // 4094 B at 100 Gbit/s = 327.52 ns, two hops of 500 ns: 1655.04 ns, then the second
  // frame one serialization behind.
  run_to_quiet(*fabric, clock, 1655);
  EXPECT_TRUE(receive_all(fabric->port(0, 1)).empty());
  run_to_quiet(*fabric, clock, 1656);
  auto first = receive_all(fabric->port(0, 1));
  ASSERT_EQ(first.size(), 1U);
  EXPECT_EQ(first[0].timestamp_ns, 1656U);
  EXPECT_EQ(first[0].bytes, f.bytes);
  run_to_quiet(*fabric, clock);
  auto second = receive_all(fabric->port(0, 1));
  ASSERT_EQ(second.size(), 1U);
  EXPECT_EQ(second[0].timestamp_ns, 1983U);  // ceil(1655.04 + 327.52)
  const LinkCounters up = fabric->counters({0, CableTier::kHost, 0, 0}, LinkDirection::kUp);
  EXPECT_EQ(up.frames_sent, 2U);
  EXPECT_EQ(up.bytes_sent, 2U * kFrame);
  EXPECT_EQ(fabric->frames_in_flight(), 0U);
}

TEST(FabricTiming, LeafSpineCrossesFourLinks) {
  VirtualClock clock;
  FabricConfig config{.endpoints = 4};
  config.planes = {PlaneTopology{.leaves = 2,
                                 .spines = 2,
                                 .hosts_per_leaf = 2,
                                 .host_link = {.rate_bps = kRate100G, .propagation_ns = 500},
                                 .spine_link = {.rate_bps = kRate400G, .propagation_ns = 1000}}};
  auto fabric = Fabric::create(clock, config).value();
  ASSERT_EQ(fabric->port(0, 0).send_burst(std::vector<Frame>{
                test_frame(config, {.src = 0, .dst = 3, .frame_bytes = kFrame}),
                test_frame(config, {.src = 0, .dst = 1, .frame_bytes = kFrame})}),
            2U);
  run_to_quiet(*fabric, clock);
  // Same leaf: 2 x (327.52 + 500) = 1655.04, sent one serialization after the first.
  auto local = receive_all(fabric->port(0, 1));
  ASSERT_EQ(local.size(), 1U);
  EXPECT_EQ(local[0].timestamp_ns, 1983U);  // ceil(1982.56)
  // Across a spine: 2 x (327.52 + 500) + 2 x (81.88 + 1000) = 3818.8.
  auto remote = receive_all(fabric->port(0, 3));
  ASSERT_EQ(remote.size(), 1U);
  EXPECT_EQ(remote[0].timestamp_ns, 3819U);
}

TEST(FabricTiming, DegradedLinkAtATenthOfItsRateSerializesTenTimesLonger) {
  VirtualClock clock;
  FabricConfig config = one_switch(2);
  config.faults.degraded.push_back({.cable = {0, CableTier::kHost, 1, 0}, .rate_fraction = 0.1});
  auto fabric = Fabric::create(clock, config).value();
  const Frame f = test_frame(config, {.src = 0, .dst = 1, .frame_bytes = kFrame});
  ASSERT_EQ(fabric->port(0, 0).send_burst(std::vector<Frame>{f, f}), 2U);
  run_to_quiet(*fabric, clock);
  auto got = receive_all(fabric->port(0, 1));
  ASSERT_EQ(got.size(), 2U);
  // 327.52 + 500 + 3275.2 + 500 = 4602.72; the second waits a whole slow serialization.
  EXPECT_EQ(got[0].timestamp_ns, 4603U);
  EXPECT_EQ(got[1].timestamp_ns, 7878U);  // ceil(4602.72 + 3275.2)
}

TEST(FabricTiming, ReceiveReturnsOnlyWhatHasArrivedByNow) {
  VirtualClock clock;
  const FabricConfig config = one_switch(2);
  auto fabric = Fabric::create(clock, config).value();
  ASSERT_EQ(fabric->port(0, 0).send_burst(std::vector<Frame>{test_frame(config, {})}), 1U);
  // The driver jumps past the arrival without run_until: the port catches up itself.
  clock.set(10'000);
  EXPECT_EQ(receive_all(fabric->port(0, 1)).size(), 1U);
  EXPECT_FALSE(fabric->next_event_ns());
}

}  // namespace
}  // namespace mr::io::fabric

namespace mr::io::fabric {
namespace {

// Picoseconds in 64 bits: a clock that reads days already (CLOCK_MONOTONIC on a host up for
// weeks) would overflow them, and the config's fault times would count from its zero.
TEST(FabricTiming, RefusesAClockThatDoesNotStartNearZero) {
  VirtualClock clock(2ULL * 24 * 3600 * 1'000'000'000);
  auto fabric = Fabric::create(clock, FabricConfig{});
  ASSERT_FALSE(fabric);
  EXPECT_EQ(fabric.error().field, "clock");
  VirtualClock fresh(1'000'000);
  EXPECT_TRUE(Fabric::create(fresh, FabricConfig{}));
}

}  // namespace
}  // namespace mr::io::fabric
