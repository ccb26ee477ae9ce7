#include "reference/io/fabric/fabric_config.h"

#include <gtest/gtest.h>

namespace mr::io::fabric {
namespace {

FabricConfig leaf_spine(uint32_t planes) {
  FabricConfig c{.endpoints = 16};
  c.planes.assign(planes, PlaneTopology{.leaves = 4, .spines = 4, .hosts_per_leaf = 4});
  return c;
}

std::string error_field(const FabricConfig& c) {
  auto ok = validate_fabric_config(c);
  return ok ? std::string() : ok.error().field;
}

TEST(FabricConfig, DefaultsAndLeafSpineAreValid) {
  EXPECT_TRUE(validate_fabric_config(FabricConfig{}));
  EXPECT_TRUE(validate_fabric_config(leaf_spine(8)));
}

TEST(FabricConfig, ErrorsNameTheWrongField) {
  FabricConfig c = leaf_spine(8);
  c.planes[2].spines = 0;
  EXPECT_EQ(error_field(c), "planes[2].spines");
  c = leaf_spine(2);
  c.planes[1].leaves = 3;  // 3 x 4 < 16
  EXPECT_EQ(error_field(c), "planes[1].leaves");
  c = leaf_spine(1);
  c.planes[0].spine_link.rate_bps = 0;
  EXPECT_EQ(error_field(c), "planes[0].spine_link.rate_bps");
  c = leaf_spine(17);
  EXPECT_EQ(error_field(c), "planes");
  c = leaf_spine(1);
  c.endpoints = 0;
  EXPECT_EQ(error_field(c), "endpoints");
  c = leaf_spine(1);
  c.ecn = {.enabled = true, .kmin_bytes = 10, .kmax_bytes = 5};
  EXPECT_EQ(error_field(c), "ecn.kmax_bytes");
  c = leaf_spine(1);
  c.trimming = {.enabled = true, .ip_bytes = 20};
  EXPECT_EQ(error_field(c), "trimming.ip_bytes");
  c = leaf_spine(1);
  c.trimming = {.enabled = true, .dscp = 64};
  EXPECT_EQ(error_field(c), "trimming.dscp");
}

TEST(FabricConfig, FaultsMustNameCablesOfTheTopology) {
  FabricConfig c = leaf_spine(2);
  c.faults.flaps.push_back({.cable = {1, CableTier::kSpine, 3, 4}, .down_ns = 1, .up_ns = 2});
  EXPECT_EQ(error_field(c), "faults.flaps[0].cable");  // spine 4 of 4
  c.faults.flaps[0].cable.b = 3;
  EXPECT_TRUE(validate_fabric_config(c));
  c.faults.flaps[0].up_ns = 1;
  EXPECT_EQ(error_field(c), "faults.flaps[0].up_ns");
  c = leaf_spine(2);
  c.faults.black_holes.push_back({.plane = 2});
  EXPECT_EQ(error_field(c), "faults.black_holes[0].plane");
  c = leaf_spine(2);
  c.faults.degraded.push_back({.cable = {0, CableTier::kHost, 15, 0}, .rate_fraction = 0});
  EXPECT_EQ(error_field(c), "faults.degraded[0].rate_fraction");
  c = leaf_spine(2);
  c.faults.losses.push_back({.probability = 1.5});
  EXPECT_EQ(error_field(c), "faults.losses[0].probability");
  c = leaf_spine(2);
  c.faults.losses.push_back({.cable = CableRef{0, CableTier::kHost, 16, 0}, .probability = 0.1});
  EXPECT_EQ(error_field(c), "faults.losses[0].cable");
}

TEST(FabricAddressing, NamesEveryEndpointOnEveryPlane) {
  FabricAddressing plan;
  EXPECT_EQ(plan.ipv4(0, 0).to_string(), "198.18.0.1");
  EXPECT_EQ(plan.ipv4(1, 7).to_string(), "198.18.32.8");
  EXPECT_EQ(plan.ipv4(15, 8189).to_string(), "198.19.255.254");
  EXPECT_EQ(plan.ipv6(2, 5).to_string(), "fd00:0:0:2::6");
  EXPECT_EQ(plan.mac(3, 258).to_string(), "02:00:00:03:01:02");
  for (uint32_t plane : {0U, 1U, 15U}) {
    for (uint32_t e : {0U, 1U, 1023U, kMaxEndpoints - 1}) {
      EXPECT_EQ(plan.endpoint_of(plane, plan.ipv4(plane, e)), e);
      EXPECT_EQ(plan.endpoint_of(plane, plan.ipv6(plane, e)), e);
    }
  }
}

TEST(FabricAddressing, AnotherPlanesAddressIsNotOnThisPlane) {
  FabricAddressing plan;
  EXPECT_EQ(plan.endpoint_of(0, plan.ipv4(1, 3)), std::nullopt);
  EXPECT_EQ(plan.endpoint_of(1, plan.ipv6(0, 3)), std::nullopt);
  EXPECT_EQ(plan.endpoint_of(0, plan.ipv4(0, 20), 16), std::nullopt);  // beyond endpoints
  EXPECT_EQ(plan.endpoint_of(0, wire::Ipv4Address{{198, 18, 0, 0}}), std::nullopt);
  EXPECT_EQ(plan.endpoint_of(0, wire::Ipv4Address{{10, 0, 0, 1}}), std::nullopt);
}

TEST(FabricAddressing, SharedAddressesAreTheSameEndpointOnEveryPlane) {
  FabricAddressing plan{.shared = true};
  EXPECT_EQ(plan.ipv4(5, 7).to_string(), "198.18.0.8");
  EXPECT_EQ(plan.ipv6(5, 7), plan.ipv6(0, 7));
  for (uint32_t plane : {0U, 3U, 15U}) {
    EXPECT_EQ(plan.endpoint_of(plane, plan.ipv4(0, 9)), 9U);
    EXPECT_EQ(plan.endpoint_of(plane, plan.ipv6(0, 9)), 9U);
  }
  EXPECT_EQ(plan.endpoint_of(3, FabricAddressing{}.ipv4(3, 9)), std::nullopt);
}

}  // namespace
}  // namespace mr::io::fabric
