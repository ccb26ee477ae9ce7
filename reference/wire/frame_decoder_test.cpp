#include "reference/wire/frame_decoder.h"

#include <gtest/gtest.h>

#include "reference/wire/opcode.h"
#include "reference/wire/test_frames.h"

namespace mr::wire {
namespace {

using testing::from_hex;

const DecodedRoce& roce(const Expected<DecodedFrame, ParseError>& d) {
  EXPECT_TRUE(d) << d.error().to_string();
  return std::get<DecodedRoce>(*d);
}

TEST(FrameDecoder, DecodesAnRcAckOverIpv4) {
  const auto frame = testing::rc_ack_ipv4();
  const auto d = decode_frame(frame);
  const auto& r = roce(d);
  EXPECT_FALSE(r.packet.is_ipv6());
  EXPECT_EQ(std::get<Ipv4>(r.packet.ip).tos, 0x6a);
  EXPECT_EQ(r.packet.udp.sport, 0xc123);
  EXPECT_EQ(r.packet.bth.opcode, kOpRcAcknowledge);
  EXPECT_EQ(r.packet.bth.dqpn, 0x12U);
  EXPECT_EQ(r.packet.bth.psn, 0x100U);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(r.packet.aeth->syndrome, 0x1f);
  EXPECT_EQ(r.packet.aeth->msn, 1U);
  EXPECT_TRUE(r.packet.payload.empty());
  EXPECT_EQ(r.packet.icrc, 0x75b3aa37U);
  EXPECT_TRUE(r.icrc_ok());
  EXPECT_EQ(r.transport_offset, 42U);
}

TEST(FrameDecoder, SplitsPayloadAndPadOverIpv6) {
  const auto frame = testing::rc_send_only_ipv6();
  const auto d = decode_frame(frame);
  const auto& r = roce(d);
  ASSERT_TRUE(r.packet.is_ipv6());
  EXPECT_EQ(std::get<Ipv6>(r.packet.ip).fl, 0x12345U);
  EXPECT_EQ(r.packet.bth.padcount, 3);
  EXPECT_EQ(std::string(r.packet.payload.begin(), r.packet.payload.end()), "hello");
  EXPECT_EQ(r.packet.pad.size(), 3U);
  EXPECT_TRUE(r.icrc_ok());
  EXPECT_EQ(r.transport_offset, 62U);
}

TEST(FrameDecoder, DecodesARealCnp) {
  const auto frame = testing::cx4_cnp();
  const auto d = decode_frame(frame);
  const auto& r = roce(d);
  EXPECT_EQ(r.packet.bth.opcode, kOpCnp);
  EXPECT_EQ(r.packet.bth.becn, 1);
  EXPECT_TRUE(r.packet.cnp_padding);
  EXPECT_TRUE(r.icrc_ok());
}

TEST(FrameDecoder, ReportsAWrongIcrcWithoutFailing) {
  auto frame = testing::rc_ack_ipv4();
  frame.back() ^= 1;
  const auto d = decode_frame(frame);
  EXPECT_FALSE(roce(d).icrc_ok());
}

TEST(FrameDecoder, DecodesAVlanTaggedFrame) {
  auto frame = testing::rc_ack_ipv4();
  const uint8_t tag[] = {0x81, 0x00, 0x60, 0x64, 0x08, 0x00};  // prio 3, vlan 100
  frame.erase(frame.begin() + 12, frame.begin() + 14);
  frame.insert(frame.begin() + 12, std::begin(tag), std::end(tag));
  const auto d = decode_frame(frame);
  const auto& r = roce(d);
  ASSERT_TRUE(r.packet.vlan);
  EXPECT_EQ(r.packet.vlan->prio, 3);
  EXPECT_EQ(r.packet.vlan->vlan, 100);
  EXPECT_TRUE(r.icrc_ok());  // the tag is outside the ICRC
}

TEST(FrameDecoder, NonRoceTrafficIsNotAnError) {
  auto frame = testing::rc_ack_ipv4();
  frame[14 + 20 + 2] = 0x00;  // UDP dport 4791 -> 183
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  ASSERT_TRUE(std::holds_alternative<NotRoce>(*d));
  EXPECT_EQ(std::get<NotRoce>(*d).to_string(), "udp port 0xb7");
  const auto arp = from_hex("ffffffffffff020000000001080600010800060400010200000000010a000001");
  const auto a = decode_frame(arp);
  ASSERT_TRUE(a);
  EXPECT_EQ(std::get<NotRoce>(*a).to_string(), "ethertype 0x806");
}

TEST(FrameDecoder, EveryTruncationIsAnErrorNeverAnOverread) {
  const auto frame = testing::rc_send_only_ipv6();
  for (size_t n = 0; n < frame.size(); ++n) {
    // A fresh allocation of exactly n bytes so that ASan sees any overread.
    std::vector<uint8_t> cut(frame.begin(), frame.begin() + static_cast<long>(n));
    const auto d = decode_frame(cut);
    EXPECT_FALSE(d) << "truncated to " << n << " bytes yet decoded";
  }
}

TEST(FrameDecoder, PadCountLargerThanPayloadNamesTheField) {
  auto frame = testing::rc_ack_ipv4();
  frame[42 + 1] = 0x30;  // padcount 3 on an ACK with no payload
  const auto d = decode_frame(frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().header, "BTH");
  EXPECT_EQ(d.error().field, "padcount");
  EXPECT_EQ(d.error().offset, 43U);
  EXPECT_EQ(d.error().to_string(),
            "BTH.padcount at byte 43: pad count 3 exceeds the 0 bytes before the ICRC");
}

TEST(FrameDecoder, MissingImpliedHeaderSaysWhichOpcodeImpliedIt) {
  auto frame = testing::rc_ack_ipv4();
  frame[42] = 0x0a;  // RC_RDMA_WRITE_ONLY needs a 16-byte RETH; 8 bytes follow the BTH
  const auto d = decode_frame(frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().header, "RETH");
  EXPECT_NE(d.error().reason.find("RC_RDMA_WRITE_ONLY implies RETH"), std::string::npos);
}

TEST(FrameDecoder, PayloadOnAnOpcodeWithoutPayloadIsRejected) {
  auto frame = testing::rc_send_only_ipv6();
  frame[62] = 0x11;  // RC_ACKNOWLEDGE: AETH, then 8 more bytes before the ICRC
  frame[62 + 1] = 0x00;
  const auto d = decode_frame(frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().field, "opcode");
  EXPECT_EQ(
      d.error().to_string(),
      "BTH.opcode at byte 62: RC_ACKNOWLEDGE carries no payload, but 4 bytes follow its headers");
}

TEST(FrameDecoder, UdpLengthMustAgreeWithIp) {
  auto frame = testing::rc_ack_ipv4();
  frame[14 + 20 + 5] += 4;
  const auto d = decode_frame(frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().header, "UDP");
  EXPECT_EQ(d.error().field, "len");
  EXPECT_EQ(d.error().to_string(),
            "UDP.len at byte 38: length 32 disagrees with the IP header, which leaves 28 bytes");
}

TEST(FrameDecoder, Ipv6VersionAndPayloadLengthAreChecked) {
  auto frame = testing::rc_send_only_ipv6();
  frame[14] = 0x40 | (frame[14] & 0x0f);  // version 4 under the IPv6 ethertype
  auto d = decode_frame(frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().to_string(), "IPv6.version at byte 14: expected 6, got 4");
  frame = testing::rc_send_only_ipv6();
  frame[14 + 5] += 1;  // payload length one byte beyond the capture
  d = decode_frame(frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().to_string(),
            "IPv6.plen at byte 18: payload length 33 exceeds the 32 bytes captured");
}

TEST(FrameDecoder, IpLengthBeyondTheCaptureIsRejected) {
  auto frame = testing::rc_ack_ipv4();
  frame[14 + 3] += 1;
  const auto d = decode_frame(frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().to_string(),
            "IP.len at byte 16: total length 49 exceeds the 48 bytes captured");
}

TEST(FrameDecoder, EthernetPaddingAfterTheIpPacketIsIgnored) {
  auto frame = testing::rc_ack_ipv4();
  frame.resize(frame.size() + 12, 0);  // a 60-byte minimum frame plus pad
  const auto d = decode_frame(frame);
  EXPECT_TRUE(roce(d).icrc_ok());
}

TEST(FrameDecoder, UnknownOpcodeDecodesTheBthAndKeepsTheRestAsPayload) {
  auto frame = testing::rc_ack_ipv4();
  frame[42] = 0x15;  // reserved RC opcode
  const auto d = decode_frame(frame);
  const auto& r = roce(d);
  EXPECT_FALSE(r.opcode_known);
  EXPECT_EQ(r.packet.payload.size(), 4U);
}

}  // namespace
}  // namespace mr::wire
