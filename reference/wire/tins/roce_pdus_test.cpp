#include "reference/wire/tins/roce_pdus.h"

#include <gtest/gtest.h>

#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/test_frames.h"

namespace mr::wire::tins {
namespace {

TEST(RocePdus, AStackBuiltWithLibtinsDecodesWithAValidIcrc) {
  Bth bth;
  bth.opcode = kOpRcAcknowledge;
  bth.dqpn = 0x12;
  bth.psn = 0x100;
  Aeth aeth;
  aeth.syndrome = 0x1f;
  aeth.msn = 1;
  Tins::EthernetII eth = Tins::EthernetII("02:00:00:00:00:02", "02:00:00:00:00:01") /
                         Tins::IP("198.18.0.2", "198.18.0.1") / Tins::UDP(4791, 0xc123) /
                         BthPdu(bth) / AethPdu(aeth);
  auto frame = serialize_roce(eth);
  ASSERT_TRUE(frame) << frame.error();
  auto d = decode_frame(*frame);
  ASSERT_TRUE(d) << d.error().to_string();
  const auto& r = std::get<DecodedRoce>(*d);
  EXPECT_TRUE(r.icrc_ok());
  EXPECT_EQ(r.packet.bth, bth);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(*r.packet.aeth, aeth);
}

TEST(RocePdus, AParsedFrameGainsTheDecodedChain) {
  const auto bytes = testing::rc_send_only_ipv6();
  Tins::EthernetII eth(bytes.data(), static_cast<uint32_t>(bytes.size()));
  ASSERT_TRUE(attach_roce(eth));
  const auto& bth = eth.rfind_pdu<BthPdu>();
  EXPECT_EQ(BthPdu::name(), "BTH");
  EXPECT_EQ(bth.header().opcode, kOpRcSendOnly);
  EXPECT_EQ(bth.header().psn, 0xabcdU);
  // The RawPDU holds payload and pad, as Scapy's Raw does.
  const auto& raw = eth.rfind_pdu<Tins::RawPDU>();
  EXPECT_EQ(std::string(raw.payload().begin(), raw.payload().end()), std::string("hello\0\0\0", 8));
  // And it serializes back to the same frame, pad, zero UDP checksum, ICRC and all.
  auto again = serialize_roce(eth);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(*again, bytes);
  auto d = decode_frame(*again);
  ASSERT_TRUE(d);
  EXPECT_TRUE(std::get<DecodedRoce>(*d).icrc_ok());
}

TEST(RocePdus, AParsedAckSerializesBackByteForByte) {
  const auto bytes = testing::rc_ack_ipv4();
  Tins::EthernetII eth(bytes.data(), static_cast<uint32_t>(bytes.size()));
  ASSERT_TRUE(attach_roce(eth));
  EXPECT_EQ(eth.rfind_pdu<AethPdu>().header().msn, 1U);
  auto again = serialize_roce(eth);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(*again, bytes);
}

TEST(RocePdus, NonRoceUdpIsRefused) {
  Tins::EthernetII eth = Tins::EthernetII() / Tins::IP("198.18.0.2", "198.18.0.1") /
                         Tins::UDP(53, 1000) / Tins::RawPDU("x");
  EXPECT_FALSE(attach_roce(eth));
}

}  // namespace
}  // namespace mr::wire::tins
