// The fabric on the real clock between network namespaces: the Linux kernels of two
// endpoint namespaces ping each other through it, and see its propagation delay, its planes
// and its faults; a config and links that do not match are refused.
#include "reference/io/fabric/real_time_fabric.h"

#include <gtest/gtest.h>

#include "reference/io/kernel_ping.h"

namespace mr::io::fabric {
namespace {

constexpr uint64_t kPropagationNs = 1'000'000;  // per cable: a ping crosses four

// Two endpoints on `planes` single-switch planes of 10 Gb/s cables, 1 ms each.
FabricConfig two_hosts(uint32_t planes) {
  FabricConfig c{.endpoints = 2};
  c.planes.assign(planes, PlaneTopology{.host_link = {.rate_bps = 10'000'000'000,
                                                      .propagation_ns = kPropagationNs}});
  return c;
}

std::unique_ptr<RealTimeFabricBed> start(const FabricConfig& config) {
  auto bed = RealTimeFabricBed::start(config, {.kernel_addresses = true});
  EXPECT_TRUE(bed) << bed.error();
  return bed ? std::move(*bed) : nullptr;
}

TEST(RealTimeFabric, AKernelPingCrossesTheFabricInItsPropagationDelay) {
  const FabricConfig config = two_hosts(1);
  auto b = start(config);
  ASSERT_TRUE(b);
  const std::string peer = config.addressing.ipv4(0, 1).to_string();
  for (uint16_t seq = 1; seq <= 3; ++seq) {
    auto rtt = kernel_ping(b->net->endpoint(0), peer, FabricNamespaces::endpoint_interface(0), seq,
                           2'000'000'000);
    ASSERT_TRUE(rtt) << rtt.error();
    EXPECT_GE(*rtt, 4 * kPropagationNs);
    // The thread's polling adds about 0.5 ms here; a loaded CI host, more.
    EXPECT_LT(*rtt, 4 * kPropagationNs + 50'000'000);
  }
  b->fabric->stop();
  EXPECT_GE(b->fabric->frames_in(), 6U);  // three requests, three replies
  EXPECT_EQ(b->fabric->frames_in(), b->fabric->frames_out());
  EXPECT_GE(b->fabric->fabric().plane_counters(0).frames_sent, 12U);  // two cables each
}

TEST(RealTimeFabric, APlaneBlackHoledFromTheStartCarriesNothingAndTheOtherEverything) {
  FabricConfig config = two_hosts(2);
  config.faults.black_holes.push_back({.plane = 1});
  auto b = start(config);
  ASSERT_TRUE(b);
  const NetworkNamespace& host = b->net->endpoint(0);
  auto live = kernel_ping(host, config.addressing.ipv4(0, 1).to_string(),
                          FabricNamespaces::endpoint_interface(0), 1, 2'000'000'000);
  EXPECT_TRUE(live) << live.error();
  auto dead = kernel_ping(host, config.addressing.ipv4(1, 1).to_string(),
                          FabricNamespaces::endpoint_interface(1), 2, 50'000'000);
  EXPECT_FALSE(dead) << "a reply came through a black hole after " << *dead << " ns";
  b->fabric->stop();
  EXPECT_GE(b->fabric->fabric().plane_counters(1).dropped(DropCause::kBlackHole), 1U);
  EXPECT_EQ(b->fabric->fabric().plane_counters(0).dropped(), 0U);
}

TEST(RealTimeFabric, RefusesLinksThatDoNotMatchTheConfig) {
  std::vector<std::vector<PcapLink>> none(1);
  auto fabric = RealTimeFabric::start(two_hosts(2), none);
  ASSERT_FALSE(fabric);
  EXPECT_NE(fabric.error().find("links: 1 planes, the config has 2"), std::string::npos)
      << fabric.error();
  std::vector<std::vector<PcapLink>> short_plane(2);
  fabric = RealTimeFabric::start(two_hosts(2), short_plane);
  ASSERT_FALSE(fabric);
  EXPECT_NE(fabric.error().find("links[0]: 0 endpoints"), std::string::npos) << fabric.error();
}

}  // namespace
}  // namespace mr::io::fabric
