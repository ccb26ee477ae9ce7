#include "reference/io/fabric/frame_headers.h"

#include <gtest/gtest.h>

#include <vector>

#include "reference/io/fabric/fabric_test_frames.h"

namespace mr::io::fabric {
namespace {

TEST(FrameHeaders, ReadsIpv4AddressesAndPorts) {
  const FabricConfig config;
  const Frame f = test_frame(config, {.src = 0, .dst = 1, .sport = 0xc123});
  auto h = parse_frame_headers(f.bytes);
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->ipv6);
  EXPECT_EQ(h->l3_offset, 14U);
  EXPECT_EQ(h->ip_header_bytes, 20U);
  EXPECT_EQ(h->src_v4, config.addressing.ipv4(0, 0));
  EXPECT_EQ(h->dst_v4, config.addressing.ipv4(0, 1));
  EXPECT_TRUE(h->udp);
  EXPECT_EQ(h->sport, 0xc123);
  EXPECT_EQ(h->dport, 4791);
  EXPECT_EQ(traffic_class(f.bytes, *h), 26 << 2 | 2);
}

TEST(FrameHeaders, ReadsIpv6FlowLabel) {
  const FabricConfig config;
  const Frame f = test_frame(config, {.ipv6 = true, .flow_label = 0xabcde, .dscp = 10, .ecn = 1});
  auto h = parse_frame_headers(f.bytes);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->ipv6);
  EXPECT_EQ(h->flow_label, 0xabcdeU);
  EXPECT_EQ(h->dst_v6, config.addressing.ipv6(0, 1));
  EXPECT_EQ(traffic_class(f.bytes, *h), 10 << 2 | 1);
}

TEST(FrameHeaders, ReadsBehindOneVlanTag) {
  Frame f = test_frame(FabricConfig{}, {});
  const std::vector<uint8_t> tag = {0x81, 0x00, 0x60, 0x05};
  f.bytes.insert(f.bytes.begin() + 12, tag.begin(), tag.end());
  auto h = parse_frame_headers(f.bytes);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->l3_offset, 18U);
  EXPECT_EQ(h->sport, 0xc000);
}

TEST(FrameHeaders, SetDscpKeepsEcnAndTheRestOfTheHeader) {
  for (bool ipv6 : {false, true}) {
    Frame f = test_frame(FabricConfig{}, {.ipv6 = ipv6, .flow_label = 0xfffff, .ecn = 3});
    auto h = parse_frame_headers(f.bytes);
    ASSERT_TRUE(h);
    set_dscp(f.bytes, *h, 11);
    EXPECT_EQ(traffic_class(f.bytes, *h), 11 << 2 | 3);
    auto again = parse_frame_headers(f.bytes);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->flow_label, ipv6 ? 0xfffffU : 0U);
  }
}

TEST(FrameHeaders, RejectsGarbageWithoutReadingPastTheEnd) {
  const Frame good = test_frame(FabricConfig{}, {});
  for (size_t len = 0; len < 34; ++len) {
    const std::vector<uint8_t> cut(good.bytes.begin(), good.bytes.begin() + len);
    EXPECT_FALSE(parse_frame_headers(cut)) << len;
  }
  // IP without all of UDP still routes, without ports.
  const std::vector<uint8_t> no_udp(good.bytes.begin(), good.bytes.begin() + 38);
  auto h = parse_frame_headers(no_udp);
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->udp);
  std::vector<uint8_t> arp = good.bytes;
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_FALSE(parse_frame_headers(arp));
  std::vector<uint8_t> short_ihl = good.bytes;
  short_ihl[14] = 0x43;
  EXPECT_FALSE(parse_frame_headers(short_ihl));
  std::vector<uint8_t> long_ihl = good.bytes;
  long_ihl.resize(40);
  long_ihl[14] = 0x4f;  // 60 bytes of header in a 40-byte frame
  EXPECT_FALSE(parse_frame_headers(long_ihl));
  const Frame v6 = test_frame(FabricConfig{}, {.ipv6 = true});
  const std::vector<uint8_t> v6_cut(v6.bytes.begin(), v6.bytes.begin() + 53);
  EXPECT_FALSE(parse_frame_headers(v6_cut));
}

}  // namespace
}  // namespace mr::io::fabric
