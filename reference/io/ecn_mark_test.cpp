// ECN marking as a congested switch does it: CE set, the IPv4 checksum still valid, IPv6's
// traffic class marked, a frame without IP refused.
#include "reference/io/ecn_mark.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mr::io {
namespace {

TEST(EcnMark, EcnMarkingSetsCeAndKeepsTheIpv4ChecksumValid) {
  // 14-byte Ethernet + a 20-byte IPv4 header with TOS 0x02 (ECT(0)) and a valid checksum.
  std::vector<uint8_t> f(14 + 20 + 8, 0);
  f[12] = 0x08;
  const std::vector<uint8_t> ip = {0x45, 0x02, 0x00, 0x1c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
                                   0x00, 0x00, 198,  18,   0,    1,    198,  18,   0,    2};
  std::copy(ip.begin(), ip.end(), f.begin() + 14);
  ASSERT_TRUE(mark_ecn_ce(f));
  EXPECT_EQ(f[15] & 0x03, 0x03);
  uint32_t sum = 0;
  for (size_t i = 14; i < 34; i += 2) sum += static_cast<uint32_t>(f[i] << 8 | f[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  EXPECT_EQ(sum, 0xffffU);  // a valid header sums to all ones
  std::vector<uint8_t> v6(14 + 40, 0);
  v6[12] = 0x86;
  v6[13] = 0xdd;
  v6[14] = 0x60;
  ASSERT_TRUE(mark_ecn_ce(v6));
  EXPECT_EQ(v6[15] & 0x30, 0x30);
  std::vector<uint8_t> arp(42, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_FALSE(mark_ecn_ce(arp));
}

}  // namespace
}  // namespace mr::io
