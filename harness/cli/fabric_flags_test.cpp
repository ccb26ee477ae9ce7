// `metaroce fabric`'s flags: the fabric they make, and errors that name the flag.
#include "harness/cli/fabric_flags.h"

#include <gtest/gtest.h>

namespace mr::cli {
namespace {

TEST(FabricFlags, TwoEndpointsMakeOneSwitchOfSharedAddresses) {
  auto config = fabric_config_from({.endpoints = {"fa0", "fb0"}});
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->endpoints, 2U);
  ASSERT_EQ(config->planes.size(), 1U);
  EXPECT_TRUE(config->planes[0].single_switch());
  EXPECT_TRUE(config->addressing.shared);
  EXPECT_EQ(config->planes[0].host_link.rate_bps, 100'000'000'000U);
  EXPECT_EQ(config->planes[0].host_link.propagation_ns, 500U);
  EXPECT_TRUE(config->faults.losses.empty());
}

TEST(FabricFlags, EachEndpointListsOnePortPerPlane) {
  FabricFlags f{.endpoints = {"a0,a1,a2", "b0,b1,b2", "c0,c1,c2"}};
  auto config = fabric_config_from(f);
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->planes.size(), 3U);
  EXPECT_EQ(config->endpoints, 3U);
  const auto ports = endpoint_interfaces(f);
  EXPECT_EQ(ports[1][2], "b2");
}

TEST(FabricFlags, LeavesAndSpinesMakeALeafSpineThatCoversEveryEndpoint) {
  auto config = fabric_config_from({.endpoints = {"a", "b", "c"},
                                    .leaves = 2,
                                    .spines = 4,
                                    .rate_gbps = 25,
                                    .delay_us = 2,
                                    .queue_kib = 64,
                                    .ecn = true,
                                    .trim = true,
                                    .loss_percent = 0.5,
                                    .ipv6_ecmp = "ports",
                                    .seed = 9});
  ASSERT_TRUE(config) << config.error();
  const auto& plane = config->planes[0];
  EXPECT_EQ(plane.leaves, 2U);
  EXPECT_EQ(plane.spines, 4U);
  EXPECT_EQ(plane.hosts_per_leaf, 2U);  // 3 endpoints on 2 leaves
  EXPECT_EQ(plane.spine_link.rate_bps, 25'000'000'000U);
  EXPECT_EQ(plane.host_link.propagation_ns, 2'000U);
  EXPECT_EQ(plane.host_link.queue_bytes, 64U * 1024);
  EXPECT_TRUE(config->ecn.enabled);
  EXPECT_TRUE(config->trimming.enabled);
  ASSERT_EQ(config->faults.losses.size(), 1U);
  EXPECT_DOUBLE_EQ(config->faults.losses[0].probability, 0.005);
  EXPECT_FALSE(config->faults.losses[0].cable.has_value());
  EXPECT_EQ(config->ipv6_ecmp, io::fabric::Ipv6EcmpKey::kPorts);
  EXPECT_EQ(config->seed, 9U);
}

// Each bad flag: the error starts with the flag's name.
TEST(FabricFlags, ABadFlagIsNamed) {
  const std::vector<std::pair<FabricFlags, std::string>> cases = {
      {{.endpoints = {"a"}}, "--endpoint: give at least two"},
      {{.endpoints = {"a0,a1", "b0"}}, "--endpoint: endpoint 1 lists 1 interfaces"},
      {{.endpoints = {"a0,", "b0,b1"}}, "--endpoint: endpoint 0 (\"a0,\") has an empty"},
      {{.endpoints = {"a", "b"}, .leaves = 2}, "--spines:"},
      {{.endpoints = {"a", "b"}, .spines = 2}, "--leaves:"},
      {{.endpoints = {"a", "b"}, .rate_gbps = 0}, "--rate-gbps:"},
      {{.endpoints = {"a", "b"}, .delay_us = -1}, "--delay-us:"},
      {{.endpoints = {"a", "b"}, .queue_kib = 0}, "--queue-kib:"},
      {{.endpoints = {"a", "b"}, .queue_kib = (uint64_t{1} << 30) + 1}, "--queue-kib:"},
      {{.endpoints = {"a", "b"}, .leaves = 4097, .spines = 1}, "--leaves:"},
      {{.endpoints = {"a", "b"}, .loss_percent = 101}, "--loss:"},
      {{.endpoints = {"a", "b"}, .ipv6_ecmp = "udp"}, "--ipv6-ecmp: \"udp\""},
  };
  for (const auto& [flags, want] : cases) {
    auto config = fabric_config_from(flags);
    ASSERT_FALSE(config) << want;
    EXPECT_EQ(config.error().rfind(want, 0), 0U) << config.error();
  }
}

TEST(FabricFlags, AFabricTheConfigRefusesNamesItsField) {
  // 17 planes: beyond the MXH's 4-bit plane.
  FabricFlags f{.endpoints = {"", ""}};
  f.endpoints.assign(2, "p0,p1,p2,p3,p4,p5,p6,p7,p8,p9,p10,p11,p12,p13,p14,p15,p16");
  auto config = fabric_config_from(f);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().rfind("the fabric: planes", 0), 0U) << config.error();
}

}  // namespace
}  // namespace mr::cli
