#include "reference/wire/address.h"

#include <gtest/gtest.h>

namespace mr::wire {
namespace {

TEST(Address, MacRoundTripsThroughText) {
  auto m = MacAddress::parse("02:00:5E:10:00:0a");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->to_string(), "02:00:5e:10:00:0a");
  EXPECT_FALSE(MacAddress::parse("02:00:5e:10:00"));
  EXPECT_FALSE(MacAddress::parse("02-00-5e-10-00-0a"));
  EXPECT_FALSE(MacAddress::parse("02:00:5e:10:00:0g"));
}

TEST(Address, IpAddressesPrintAsScapyDoes) {
  EXPECT_EQ(Ipv4Address::parse("198.18.0.1")->to_string(), "198.18.0.1");
  EXPECT_EQ(Ipv6Address::parse("fe80:0:0::1")->to_string(), "fe80::1");
  EXPECT_FALSE(Ipv4Address::parse("198.18.0.256"));
}

}  // namespace
}  // namespace mr::wire
