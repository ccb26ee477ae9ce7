#include "reference/io/gid_table.h"

#include <gtest/gtest.h>

namespace mr::io {
namespace {

TEST(GidTable, IndexesAsRxeShowsThem) {
  const auto mac = *wire::MacAddress::parse("52:54:00:12:34:56");
  const std::vector<wire::Ipv6Address> globals = {*wire::Ipv6Address::parse("2001:2::5")};
  const auto table = GidTable::build(mac, wire::Ipv4Address{{198, 18, 0, 5}}, globals);
  ASSERT_EQ(table.entries().size(), 3U);
  // EUI-64: flip the universal/local bit of the first byte, insert ff:fe in the middle.
  EXPECT_EQ(table.at(0)->to_string(), "fe80::5054:ff:fe12:3456");
  EXPECT_EQ(table.at(1)->to_string(), "::ffff:198.18.0.5");
  EXPECT_EQ(table.at(2)->to_string(), "2001:2::5");
  EXPECT_FALSE(table.at(3));
  EXPECT_EQ(table.index_of(*wire::Ipv6Address::parse("::ffff:198.18.0.5")), 1U);
  EXPECT_FALSE(table.index_of(*wire::Ipv6Address::parse("::1")));
  EXPECT_EQ(table.entries()[1].kind, GidKind::kIpv4Mapped);
  EXPECT_EQ(table.to_string(),
            "GID[0]: fe80::5054:ff:fe12:3456, RoCE v2\nGID[1]: ::ffff:198.18.0.5, RoCE v2\n"
            "GID[2]: 2001:2::5, RoCE v2\n");
}

TEST(GidTable, WithoutIpv4TheGlobalsFollowTheLinkLocal) {
  const auto mac = *wire::MacAddress::parse("02:00:00:00:00:01");
  const std::vector<wire::Ipv6Address> globals = {*wire::Ipv6Address::parse("2001:2::1")};
  const auto table = GidTable::build(mac, std::nullopt, globals);
  ASSERT_EQ(table.entries().size(), 2U);
  EXPECT_EQ(table.at(0)->to_string(), "fe80::ff:fe00:1");
  EXPECT_EQ(table.at(1)->to_string(), "2001:2::1");
}

TEST(GidTable, MappedAddressesRoundTrip) {
  const wire::Ipv4Address v4{{198, 19, 255, 254}};
  EXPECT_EQ(ipv4_from_mapped(ipv4_mapped(v4)), v4);
  EXPECT_FALSE(ipv4_from_mapped(*wire::Ipv6Address::parse("fe80::1")));
}

}  // namespace
}  // namespace mr::io
