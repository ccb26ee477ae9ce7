// Parsing what dcb and ethtool print.
#include "harness/doctor/qos_parse.h"

#include <gtest/gtest.h>

namespace mr::doctor {
namespace {

TEST(QosParse, PfcPrioritiesThatAreOn) {
  const char* text =
      "pfc-cap 8 macsec-bypass off delay 4096\n"
      "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:on 6:off 7:off\n";
  EXPECT_EQ(parse_pfc_priorities(text), (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(parse_pfc_priorities("prio-pfc 0:off 1:off\n"), std::vector<uint32_t>{});
  EXPECT_EQ(parse_pfc_priorities("pfc-cap 8\n"), std::nullopt);
}

TEST(QosParse, DscpPrioNumericAndNamed) {
  const auto map = parse_dscp_prio("default-prio 0\ndscp-prio 26:3 CS6:6 AF41:4 EF:5 99:1\n");
  EXPECT_EQ(map, (std::map<uint32_t, uint32_t>{{26, 3}, {34, 4}, {46, 5}, {48, 6}}));
  EXPECT_TRUE(parse_dscp_prio("ethtype-prio 0x8906:3\n").empty());
}

TEST(QosParse, EthtoolFeatures) {
  const auto f = parse_ethtool_features(
      "Features for eth0:\nrx-checksumming: on [fixed]\n\ttx-checksum-ipv4: off [fixed]\n");
  EXPECT_EQ(f.size(), 2U);
  EXPECT_EQ(f.at("rx-checksumming"), "on [fixed]");
  EXPECT_EQ(f.at("tx-checksum-ipv4"), "off [fixed]");
}

}  // namespace
}  // namespace mr::doctor
