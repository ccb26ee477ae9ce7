#include "harness/agent/gid_table.h"

#include <gtest/gtest.h>

namespace mr::agent {
namespace {

SysfsGid gid(uint32_t index, const char* address, const char* type) {
  return {.index = index, .gid = *wire::Ipv6Address::parse(address), .type = type, .ndev = "eth0"};
}

wire::Ipv4Address v4(const char* text) { return *wire::Ipv4Address::parse(text); }
wire::Ipv6Address v6(const char* text) { return *wire::Ipv6Address::parse(text); }

// rxe on a netdev with IPv4 10.0.0.2 and a global IPv6 address: a v1 and a v2 entry each.
const std::vector<SysfsGid> kTable = {gid(0, "fe80::5054:ff:fe12:3456", "RoCEv1"),
                                      gid(1, "fe80::5054:ff:fe12:3456", "RoCEv2"),
                                      gid(2, "::ffff:10.0.0.2", "RoCEv1"),
                                      gid(3, "::ffff:10.0.0.2", "RoCEv2"),
                                      gid(4, "2001:db8::2", "RoCEv1"),
                                      gid(5, "2001:db8::2", "RoCEv2")};

// The chosen index, or a sentinel when the selection failed.
uint32_t sgid(uint32_t default_index, const transport::IpAddress& dip,
              const std::optional<transport::IpAddress>& sip) {
  auto r = select_sgid_index(kTable, default_index, dip, sip);
  return r ? *r : 9999;
}

TEST(GidTable, ParsesSysfsTypeText) {
  EXPECT_EQ(parse_gid_type("RoCE v2"), "RoCEv2");
  EXPECT_EQ(parse_gid_type("RoCE v2\n"), "RoCEv2");
  EXPECT_EQ(parse_gid_type("IB/RoCE v1"), "RoCEv1");
  EXPECT_FALSE(parse_gid_type("IB"));
  EXPECT_FALSE(parse_gid_type(""));
}

TEST(GidTable, DefaultIsTheFirstRoceV2Ipv4MappedGid) {
  EXPECT_EQ(default_gid_index(kTable), 3U);
  EXPECT_FALSE(default_gid_index({kTable[0], kTable[1], kTable[2]}));
  EXPECT_FALSE(default_gid_index({}));
  EXPECT_TRUE(is_ipv4_mapped(v6("::ffff:1.2.3.4")));
  EXPECT_FALSE(is_ipv4_mapped(v6("::1.2.3.4")));
}

TEST(GidTable, SourceGidBySip) {
  EXPECT_EQ(sgid(3, v4("10.0.0.1"), v4("10.0.0.2")), 3U);
  EXPECT_EQ(sgid(3, v6("2001:db8::1"), v6("2001:db8::2")), 5U);
  auto bad = select_sgid_index(kTable, 3, v4("10.0.0.1"), v4("10.0.0.9"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "attrs.av.sip");
  EXPECT_NE(bad.error().message.find("10.0.0.9"), std::string::npos);
}

TEST(GidTable, SourceGidOfDipsFamily) {
  EXPECT_EQ(sgid(3, v4("10.0.0.1"), std::nullopt), 3U);
  EXPECT_EQ(sgid(3, v6("2001:db8::1"), std::nullopt), 5U);
  EXPECT_EQ(sgid(3, v6("fe80::1"), std::nullopt), 1U);
  auto none = select_sgid_index({kTable[3]}, 3, v6("2001:db8::1"), std::nullopt);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().field, "attrs.av.dip");
}

}  // namespace
}  // namespace mr::agent
