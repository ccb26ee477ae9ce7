#include "reference/io/fabric/packet_trimmer.h"

#include <gtest/gtest.h>

#include <span>

#include "reference/io/fabric/fabric_test_frames.h"
#include "reference/io/internet_checksum.h"

namespace mr::io::fabric {
namespace {

uint16_t be16(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint16_t>(b[at] << 8 | b[at + 1]);
}

TEST(PacketTrimmer, CutsIpv4ToTheTrimSizeAndRewritesLengthsAndChecksum) {
  Frame f = test_frame(FabricConfig{}, {.frame_bytes = 4096, .dscp = 26, .ecn = 2});
  const auto h = parse_frame_headers(f.bytes).value();
  const Trimming trim{.enabled = true, .ip_bytes = 128};
  EXPECT_TRUE(trim_frame(f.bytes, h, trim, 10));
  ASSERT_EQ(f.bytes.size(), 14U + 128);
  EXPECT_EQ(traffic_class(f.bytes, h), 10 << 2 | 2);
  EXPECT_EQ(be16(f.bytes, 16), 128);       // IPv4 total length
  EXPECT_EQ(be16(f.bytes, 38), 128 - 20);  // UDP length
  EXPECT_EQ(internet_checksum(std::span(f.bytes).subspan(14, 20)), 0);
}

TEST(PacketTrimmer, LeavesLengthsAndChecksumStaleWhenConfiguredAsSonicDoes) {
  Frame f = test_frame(FabricConfig{}, {.frame_bytes = 4096});
  const uint16_t ip_len = be16(f.bytes, 16);
  const uint16_t udp_len = be16(f.bytes, 38);
  const auto h = parse_frame_headers(f.bytes).value();
  const Trimming trim{
      .enabled = true, .ip_bytes = 128, .rewrite_lengths = false, .recompute_ipv4_checksum = false};
  EXPECT_TRUE(trim_frame(f.bytes, h, trim, 10));
  EXPECT_EQ(f.bytes.size(), 14U + 128);
  EXPECT_EQ(be16(f.bytes, 16), ip_len);
  EXPECT_EQ(be16(f.bytes, 38), udp_len);
  EXPECT_NE(internet_checksum(std::span(f.bytes).subspan(14, 20)), 0);  // DSCP changed
}

TEST(PacketTrimmer, RewritesIpv6PayloadLength) {
  Frame f = test_frame(FabricConfig{}, {.frame_bytes = 2048, .ipv6 = true, .flow_label = 77});
  const auto h = parse_frame_headers(f.bytes).value();
  EXPECT_TRUE(trim_frame(f.bytes, h, Trimming{.enabled = true, .ip_bytes = 128}, 11));
  ASSERT_EQ(f.bytes.size(), 14U + 128);
  EXPECT_EQ(be16(f.bytes, 18), 128 - 40);  // payload length
  EXPECT_EQ(be16(f.bytes, 58), 128 - 40);  // UDP length
  EXPECT_EQ(traffic_class(f.bytes, h) >> 2, 11);
  EXPECT_EQ(parse_frame_headers(f.bytes)->flow_label, 77U);
}

TEST(PacketTrimmer, OnlyRemarksAFrameAlreadyShorterThanTheTrimSize) {
  Frame f = test_frame(FabricConfig{}, {.frame_bytes = 100});
  const size_t before = f.bytes.size();
  const auto h = parse_frame_headers(f.bytes).value();
  EXPECT_FALSE(trim_frame(f.bytes, h, Trimming{.enabled = true, .ip_bytes = 128}, 10));
  EXPECT_EQ(f.bytes.size(), before);
  EXPECT_EQ(traffic_class(f.bytes, h) >> 2, 10);
  EXPECT_EQ(internet_checksum(std::span(f.bytes).subspan(14, 20)), 0);
}

}  // namespace
}  // namespace mr::io::fabric
