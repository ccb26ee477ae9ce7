#include "reference/wire/frame_builder.h"

#include <gtest/gtest.h>

#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/test_frames.h"

namespace mr::wire {
namespace {

RocePacket decoded(const std::vector<uint8_t>& frame) {
  auto d = decode_frame(frame);
  EXPECT_TRUE(d);
  return std::get<DecodedRoce>(*d).packet;
}

TEST(FrameBuilder, RebuildsKnownFramesByteForByte) {
  for (const auto& frame :
       {testing::rc_ack_ipv4(), testing::rc_send_only_ipv6(), testing::cx4_cnp()}) {
    RocePacket p = decoded(frame);
    p.icrc = 0;
    if (auto* v4 = std::get_if<Ipv4>(&p.ip)) {
      v4->len = 0;
      v4->chksum = 0;
    }
    p.udp.len = 0;
    EXPECT_EQ(build_frame(p), frame);
  }
}

TEST(FrameBuilder, FillsPaddingAndIcrcForANewPacket) {
  const uint8_t hello[] = {'h', 'e', 'l', 'l', 'o'};
  RocePacket p;
  Ipv4 ip;
  ip.src = *Ipv4Address::parse("198.18.0.1");
  ip.dst = *Ipv4Address::parse("198.18.0.2");
  p.ip = ip;
  p.bth.opcode = kOpRcSendOnly;
  p.bth.dqpn = 0x11;
  p.payload = hello;
  const auto frame = build_frame(p, {.fill_padding = true});
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d) << d.error().to_string();
  const auto& r = std::get<DecodedRoce>(*d);
  EXPECT_EQ(r.packet.bth.padcount, 3);
  EXPECT_EQ(r.packet.payload.size(), 5U);
  EXPECT_TRUE(r.icrc_ok());
  EXPECT_EQ(std::get<Ipv4>(r.packet.ip).chksum, std::get<Ipv4>(r.packet.ip).compute_checksum());
}

TEST(FrameBuilder, KeepsAGivenWrongIcrcWhenAskedTo) {
  RocePacket p = decoded(testing::rc_ack_ipv4());
  p.icrc = 0xdeadbeef;
  const auto frame = build_frame(p, {.fill_icrc = false});
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  EXPECT_FALSE(std::get<DecodedRoce>(*d).icrc_ok());
  EXPECT_EQ(std::get<DecodedRoce>(*d).packet.icrc, 0xdeadbeefU);
}

// The expected values come from an independent RFC 768 computation (Python) over the same
// frames; the ICRC masks the UDP checksum, so it stays the one of the original frame.
TEST(FrameBuilder, FillsTheUdpChecksumOverThePseudoHeaderWhenAskedTo) {
  struct Case {
    std::vector<uint8_t> frame;
    size_t udp_offset;
    uint16_t checksum;
  };
  for (const auto& c :
       {Case{testing::rc_ack_ipv4(), 34, 0xc6da}, Case{testing::rc_send_only_ipv6(), 54, 0x7f3b}}) {
    const RocePacket p = decoded(c.frame);
    const auto frame = build_frame(p, {.fill_udp_checksum = true});
    ASSERT_EQ(frame.size(), c.frame.size());
    EXPECT_EQ(frame[c.udp_offset + 6], c.checksum >> 8);
    EXPECT_EQ(frame[c.udp_offset + 7], c.checksum & 0xff);
    const auto d = decode_frame(frame);
    ASSERT_TRUE(d);
    EXPECT_TRUE(std::get<DecodedRoce>(*d).icrc_ok());
    auto unchanged = frame;
    unchanged[c.udp_offset + 6] = unchanged[c.udp_offset + 7] = 0;
    EXPECT_EQ(unchanged, c.frame);
  }
}

TEST(FrameBuilder, WritesTheGivenUdpChecksumByDefault) {
  RocePacket p = decoded(testing::rc_ack_ipv4());
  p.udp.chksum = 0xbeef;
  EXPECT_EQ(decoded(build_frame(p)).udp.chksum, 0xbeef);
}

}  // namespace
}  // namespace mr::wire
