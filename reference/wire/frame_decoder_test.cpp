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

// The frame with its 14-byte Ethernet header replaced by a cooked capture's header.
std::vector<uint8_t> cooked(const std::vector<uint8_t>& ethernet, const std::string& header) {
  std::vector<uint8_t> out = from_hex(header);
  out.insert(out.end(), ethernet.begin() + 14, ethernet.end());
  return out;
}

// SLL: pkttype 4 (sent by us), ARPHRD_ETHER, 6-byte address 02:00:00:00:00:01, IPv4.
constexpr char kSllIpv4[] =
    "0004000100060200000000010000"
    "0800";
// SLL2: IPv6, reserved, ifindex 7, ARPHRD_ETHER, pkttype 0, 6-byte address.
constexpr char kSll2Ipv6[] =
    "86dd0000000000070001"
    "0006"
    "0200000000010000";

TEST(FrameDecoder, DecodesALinuxCookedFrameAsItsEthernetOriginal) {
  const auto ethernet = testing::rc_ack_ipv4();
  const auto e = decode_frame(ethernet, Framing::kEthernet);
  const auto frame = cooked(ethernet, kSllIpv4);
  const auto c = decode_frame(frame, Framing::kLinuxSll);
  ASSERT_TRUE(e && c);
  const auto& er = std::get<DecodedRoce>(*e);
  const auto& cr = std::get<DecodedRoce>(*c);
  const auto* sll = std::get_if<CookedLinux>(&cr.cooked);
  ASSERT_NE(sll, nullptr);
  EXPECT_EQ(sll->pkttype, 4);
  EXPECT_EQ(sll->lladdrlen, 6);
  EXPECT_EQ(sll->src, 0x0200000000010000ULL);
  EXPECT_EQ(sll->proto, kEtherTypeIpv4);
  EXPECT_EQ(cr.packet.ip, er.packet.ip);
  EXPECT_EQ(cr.packet.udp, er.packet.udp);
  EXPECT_EQ(cr.packet.bth, er.packet.bth);
  EXPECT_EQ(cr.packet.aeth, er.packet.aeth);
  EXPECT_TRUE(cr.icrc_ok());
  EXPECT_EQ(cr.l3_offset, 16U);
  EXPECT_EQ(cr.transport_offset, er.transport_offset + 2);
}

TEST(FrameDecoder, DecodesAnSll2FrameOverIpv6) {
  const auto ethernet = testing::rc_send_only_ipv6();
  const auto frame = cooked(ethernet, kSll2Ipv6);
  const auto c = decode_frame(frame, Framing::kLinuxSll2);
  ASSERT_TRUE(c) << c.error().to_string();
  const auto& r = std::get<DecodedRoce>(*c);
  const auto* sll2 = std::get_if<CookedLinuxV2>(&r.cooked);
  ASSERT_NE(sll2, nullptr);
  EXPECT_EQ(sll2->ifindex, 7U);
  EXPECT_EQ(sll2->proto, kEtherTypeIpv6);
  EXPECT_TRUE(r.packet.is_ipv6());
  EXPECT_EQ(r.packet.bth.psn, 0xabcdU);
  EXPECT_EQ(std::string(r.packet.payload.begin(), r.packet.payload.end()), "hello");
  EXPECT_TRUE(r.icrc_ok());
  EXPECT_EQ(r.transport_offset, 68U);
}

TEST(FrameDecoder, ACookedFrameWithAVlanProtocolReadsTheTag) {
  auto frame = cooked(testing::rc_ack_ipv4(), kSllIpv4);
  frame[14] = 0x81;  // proto 0x8100, then the tag: prio 3, vlan 100, IPv4
  frame[15] = 0x00;
  const auto tag = from_hex("60640800");
  frame.insert(frame.begin() + 16, tag.begin(), tag.end());
  const auto c = decode_frame(frame, Framing::kLinuxSll);
  ASSERT_TRUE(c) << c.error().to_string();
  const auto& r = std::get<DecodedRoce>(*c);
  ASSERT_TRUE(r.packet.vlan);
  EXPECT_EQ(r.packet.vlan->vlan, 100);
  EXPECT_EQ(r.packet.bth.psn, 0x100U);
  EXPECT_TRUE(r.icrc_ok());
}

TEST(FrameDecoder, ACookedFrameOfAnotherProtocolIsNotRoce) {
  auto frame = cooked(testing::rc_ack_ipv4(), kSllIpv4);
  frame[14] = 0x08;  // proto 0x0806: ARP
  frame[15] = 0x06;
  const auto c = decode_frame(frame, Framing::kLinuxSll);
  ASSERT_TRUE(c);
  EXPECT_EQ(std::get<NotRoce>(*c).to_string(), "ethertype 0x806");
}

TEST(FrameDecoder, EveryTruncatedCookedHeaderNamesItsLayer) {
  const auto sll = cooked(testing::rc_ack_ipv4(), kSllIpv4);
  const auto sll2 = cooked(testing::rc_ack_ipv4(), kSll2Ipv6);
  for (size_t n = 0; n < 20; ++n) {
    std::vector<uint8_t> cut(sll2.begin(), sll2.begin() + static_cast<long>(n));
    const auto c2 = decode_frame(cut, Framing::kLinuxSll2);
    ASSERT_FALSE(c2);
    EXPECT_EQ(c2.error().error.header, "CookedLinuxV2");
    EXPECT_EQ(c2.error().depth, DecodeDepth::kNone);
    if (n >= 16) continue;
    cut.assign(sll.begin(), sll.begin() + static_cast<long>(n));
    const auto c = decode_frame(cut, Framing::kLinuxSll);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().to_string(),
              "CookedLinux at byte 0: needs 16 bytes, " + std::to_string(n) + " remain");
  }
}

// The names of the layers a refused frame was read through.
std::vector<std::string> parsed_layers(const MalformedFrame& m) {
  std::vector<std::string> names;
  m.for_each_parsed_header([&](const auto& h) { names.emplace_back(h.kName); });
  return names;
}

using Layers = std::vector<std::string>;

TEST(FrameDecoder, AnAtomicWithoutItsAtomicEthKeepsTheHeadersBeforeIt) {
  auto frame = testing::rc_ack_ipv4();
  frame[42] = kOpRcCompareSwap;  // needs a 28-byte AtomicETH; 8 bytes follow the BTH
  const auto d = decode_frame(frame, Framing::kEthernet);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().error.header, "AtomicETH");
  EXPECT_EQ(d.error().depth, DecodeDepth::kBth);
  EXPECT_EQ(parsed_layers(d.error()), (Layers{"Ether", "IP", "UDP", "BTH"}));
  ASSERT_NE(d.error().bth(), nullptr);
  EXPECT_EQ(d.error().bth()->psn, 0x100U);
  EXPECT_EQ(d.error().bth()->dqpn, 0x12U);
}

TEST(FrameDecoder, APadCountLargerThanThePayloadKeepsEveryHeader) {
  auto frame = testing::rc_ack_ipv4();
  frame[42 + 1] = 0x30;  // padcount 3 on an ACK with no payload
  const auto d = decode_frame(frame, Framing::kEthernet);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().error.field, "padcount");
  EXPECT_EQ(parsed_layers(d.error()), (Layers{"Ether", "IP", "UDP", "BTH", "AETH"}));
  EXPECT_EQ(d.error().parsed.packet.aeth->msn, 1U);
}

TEST(FrameDecoder, ABthCutShortKeepsTheHeadersUpToUdp) {
  auto frame = testing::rc_ack_ipv4();
  frame.resize(42 + 6);        // 6 of the BTH's 12 bytes
  frame[14 + 3] = 20 + 8 + 6;  // IP and UDP lengths that agree with the cut
  frame[14 + 20 + 5] = 8 + 6;
  const auto d = decode_frame(frame, Framing::kEthernet);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().to_string(), "BTH at byte 42: needs 12 bytes, 6 remain");
  EXPECT_EQ(d.error().depth, DecodeDepth::kUdp);
  EXPECT_EQ(d.error().bth(), nullptr);
  EXPECT_EQ(parsed_layers(d.error()), (Layers{"Ether", "IP", "UDP"}));
}

TEST(FrameDecoder, ARefusedFrameShowsNoHeaderOfTheFrameDecodedBefore) {
  // A tagged RDMA WRITE ONLY (RETH) first, then an untagged atomic without its AtomicETH,
  // into the same reused output.
  auto write = testing::rc_ack_ipv4();
  write[42] = kOpRcRdmaWriteOnly;
  write.insert(write.end() - 4, 16 + 4, 0);  // a RETH, 4 bytes of payload
  write[14 + 3] += 20;
  write[14 + 20 + 5] += 20;
  const uint8_t tag[] = {0x81, 0x00, 0x00, 0x64, 0x08, 0x00};
  write.erase(write.begin() + 12, write.begin() + 14);
  write.insert(write.begin() + 12, std::begin(tag), std::end(tag));
  DecodedFrame out;
  const auto first = decode_frame_into(write, Framing::kEthernet, out);
  ASSERT_TRUE(first) << first.error().error.to_string();
  ASSERT_TRUE(std::get<DecodedRoce>(out).packet.reth);
  auto atomic = testing::rc_ack_ipv4();
  atomic[42] = kOpRcFetchAdd;
  const auto second = decode_frame_into(atomic, Framing::kEthernet, out);
  ASSERT_FALSE(second);
  const MalformedFrame m{std::get<DecodedRoce>(out), second.error().depth, second.error().error};
  EXPECT_EQ(parsed_layers(m), (Layers{"Ether", "IP", "UDP", "BTH"}));
  // And a tag cut short after a tagged frame shows the Ethernet header alone.
  ASSERT_TRUE(decode_frame_into(write, Framing::kEthernet, out));
  const std::vector<uint8_t> cut(write.begin(), write.begin() + 16);
  const auto third = decode_frame_into(cut, Framing::kEthernet, out);
  ASSERT_FALSE(third);
  const MalformedFrame t{std::get<DecodedRoce>(out), third.error().depth, third.error().error};
  EXPECT_EQ(parsed_layers(t), (Layers{"Ether"}));
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
