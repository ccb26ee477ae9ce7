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

}  // namespace
}  // namespace mr::wire
