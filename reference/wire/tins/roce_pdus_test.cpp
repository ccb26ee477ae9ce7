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

// The layer names from the UDP layer down: "BTH MXH RETH Raw".
std::string chain_below_udp(const Tins::PDU& top) {
  const std::pair<Tins::PDU::PDUType, std::string_view> kNames[] = {
      {BthPdu::pdu_flag, BthPdu::name()},
      {MxhPdu::pdu_flag, MxhPdu::name()},
      {RethPdu::pdu_flag, RethPdu::name()},
      {AethPdu::pdu_flag, AethPdu::name()},
      {SackethPdu::pdu_flag, SackethPdu::name()},
      {SechPdu::pdu_flag, SechPdu::name()},
      {Tins::PDU::RAW, "Raw"}};
  std::string names;
  for (const Tins::PDU* p = top.find_pdu<Tins::UDP>()->inner_pdu(); p; p = p->inner_pdu()) {
    std::string_view name = "?";
    for (const auto& [flag, n] : kNames)
      if (p->pdu_type() == flag) name = n;
    if (!names.empty()) names += ' ';
    names += name;
  }
  return names;
}

Tins::EthernetII ipv4_udp() {
  return Tins::EthernetII("02:00:00:00:00:02", "02:00:00:00:00:01") /
         Tins::IP("198.18.0.2", "198.18.0.1") / Tins::UDP(4791, 0xc005);
}

TEST(RocePdus, AnMxhUnderTheBthMakesItAnExtBth) {
  Bth bth;
  bth.opcode = kOpRcRdmaWriteOnly;
  bth.psn = 5;  // TVer left at 0
  Mxh mxh;
  mxh.ev = 0xc005;
  mxh.msn = 1;
  Reth reth;
  reth.va = 0x1000;
  reth.rkey = 0x5678;
  reth.dlen = 4;
  Tins::EthernetII eth =
      ipv4_udp() / BthPdu(bth) / MxhPdu(mxh) / RethPdu(reth) / Tins::RawPDU("data");
  auto frame = serialize_roce(eth);
  ASSERT_TRUE(frame) << frame.error();
  EXPECT_EQ(eth.rfind_pdu<BthPdu>().header().version, kExtVersion);
  EXPECT_FALSE(eth.rfind_pdu<BthPdu>().header().sx());
  auto d = decode_frame(*frame);
  ASSERT_TRUE(d) << d.error().to_string();
  const auto& r = std::get<DecodedRoce>(*d);
  EXPECT_TRUE(r.icrc_ok());
  ASSERT_TRUE(r.packet.mxh);
  EXPECT_EQ(*r.packet.mxh, mxh);
  ASSERT_TRUE(r.packet.reth);
  EXPECT_EQ(*r.packet.reth, reth);
  EXPECT_EQ(std::string(r.packet.payload.begin(), r.packet.payload.end()), "data");
}

TEST(RocePdus, AnExtHeaderDeeperDownMarksTheBthTooAndAnotherTVerIsKept) {
  Bth ack;
  ack.opcode = kOpRcAcknowledge;
  Tins::EthernetII eth = ipv4_udp() / BthPdu(ack) / AethPdu() / SackethPdu();
  ASSERT_TRUE(serialize_roce(eth));
  EXPECT_EQ(eth.rfind_pdu<BthPdu>().header().version, kExtVersion);

  Bth two;
  two.opcode = kOpRcSendOnly;
  two.version = 2;
  Tins::EthernetII odd = ipv4_udp() / BthPdu(two) / MxhPdu();
  auto frame = serialize_roce(odd);
  ASSERT_TRUE(frame) << frame.error();
  EXPECT_EQ(odd.rfind_pdu<BthPdu>().header().version, 2U);

  Bth base;
  base.opcode = kOpRcSendOnly;
  Tins::EthernetII plain = ipv4_udp() / BthPdu(base) / Tins::RawPDU("abcd");
  ASSERT_TRUE(serialize_roce(plain));
  EXPECT_EQ(plain.rfind_pdu<BthPdu>().header().version, 0U);
}

TEST(RocePdus, ASechSetsSxAndCarriesThePacketTagBeforeTheIcrc) {
  Bth bth;
  bth.opcode = kOpRcSendOnly;
  Sech sech;
  sech.spi = 0x101;
  sech.pn = 7;
  sech.htag.bytes.fill(0x5a);
  SecTag tag;
  tag.tag.bytes.fill(0xa5);
  Tins::EthernetII eth =
      ipv4_udp() / BthPdu(bth) / SechPdu(sech, tag) / MxhPdu() / Tins::RawPDU("ciphertext");
  auto frame = serialize_roce(eth);
  ASSERT_TRUE(frame) << frame.error();
  EXPECT_TRUE(eth.rfind_pdu<BthPdu>().header().sx());
  // ... tag (16 bytes) | ICRC (4 bytes)
  EXPECT_EQ(std::vector<uint8_t>(frame->end() - 20, frame->end() - 4),
            std::vector<uint8_t>(16, 0xa5));
  auto d = decode_frame(*frame);
  ASSERT_TRUE(d) << d.error().to_string();
  const auto& r = std::get<DecodedRoce>(*d);
  EXPECT_TRUE(r.icrc_ok());
  EXPECT_EQ(r.packet.sech, sech);
  EXPECT_EQ(r.packet.sec_tag, tag);
  EXPECT_TRUE(r.packet.mxh);
  EXPECT_EQ(std::string(r.packet.payload.begin(), r.packet.payload.end()), "ciphertext");

  // Parsed back, the chain is the one built, and it serializes to the same bytes.
  Tins::EthernetII parsed(frame->data(), static_cast<uint32_t>(frame->size()));
  ASSERT_TRUE(attach_roce(parsed));
  EXPECT_EQ(chain_below_udp(parsed), "BTH SECH MXH Raw");
  EXPECT_EQ(parsed.rfind_pdu<SechPdu>().tag(), tag);
  auto again = serialize_roce(parsed);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(*again, *frame);
}

TEST(RocePdus, AParsedExtAckGainsItsSacketh) {
  Bth bth;
  bth.opcode = kOpRcAcknowledge;
  bth.version = kExtVersion;
  bth.psn = 9;
  Sacketh sack;
  sack.sack_ref = 9;
  sack.bitmap = 0b101;
  sack.ts_echo = 0x12345678;
  Tins::EthernetII eth = ipv4_udp() / BthPdu(bth) / AethPdu() / SackethPdu(sack);
  const auto frame = serialize_roce(eth);
  ASSERT_TRUE(frame) << frame.error();
  Tins::EthernetII parsed(frame->data(), static_cast<uint32_t>(frame->size()));
  ASSERT_TRUE(attach_roce(parsed));
  EXPECT_EQ(chain_below_udp(parsed), "BTH AETH SACKETH");
  EXPECT_EQ(parsed.rfind_pdu<SackethPdu>().header(), sack);
  EXPECT_EQ(SackethPdu::name(), "SACKETH");
}

TEST(RocePdus, NonRoceUdpIsRefused) {
  Tins::EthernetII eth = Tins::EthernetII() / Tins::IP("198.18.0.2", "198.18.0.1") /
                         Tins::UDP(53, 1000) / Tins::RawPDU("x");
  EXPECT_FALSE(attach_roce(eth));
}

}  // namespace
}  // namespace mr::wire::tins
