#include "harness/cli/frame_text.h"

#include <gtest/gtest.h>

#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/test_frames.h"

namespace mr::cli {
namespace {

constexpr uint64_t kTime = 1'700'000'106'000'000'001;

wire::MalformedFrame refused(const std::vector<uint8_t>& frame) {
  auto d = wire::decode_frame(frame, wire::Framing::kEthernet);
  EXPECT_FALSE(d);
  return d ? wire::MalformedFrame{} : d.error();
}

TEST(FrameText, ARoceFrameIsOneTcpdumpLikeLine) {
  const auto frame = wire::testing::rc_ack_ipv4();
  const auto d = wire::decode_frame(frame);
  ASSERT_TRUE(d);
  EXPECT_EQ(roce_line(3, kTime, std::get<wire::DecodedRoce>(*d)),
            "     3 1700000106.000000001 10.0.0.1 > 10.0.0.2 RC_ACKNOWLEDGE dqpn 0x000012 psn "
            "0x000100 syndrome 0x1f msn 1 len 0 icrc ok");
}

TEST(FrameText, APadCountLargerThanThePayloadShowsEveryHeaderThenTheError) {
  auto frame = wire::testing::rc_ack_ipv4();
  frame[42 + 1] = 0x30;  // padcount 3 on an ACK with no payload
  EXPECT_EQ(malformed_line(7, kTime, refused(frame)),
            "     7 1700000106.000000001 Ether 02:00:00:00:00:01 > 02:00:00:00:00:02 type 0x0800 "
            "/ IP 10.0.0.1 > 10.0.0.2 / UDP 49443 > 4791 len 28 / BTH RC_ACKNOWLEDGE dqpn "
            "0x000012 psn 0x000100 / AETH syndrome 0x1f msn 1 [Malformed: BTH.padcount at byte "
            "43: pad count 3 exceeds the 0 bytes before the ICRC]");
}

TEST(FrameText, AnAtomicWithoutItsAtomicEthShowsTheBthAndItsPsn) {
  auto frame = wire::testing::rc_ack_ipv4();
  frame[42] = wire::kOpRcFetchAdd;
  const std::string line = malformed_line(1, kTime, refused(frame));
  EXPECT_NE(line.find(" / UDP 49443 > 4791 len 28 / BTH RC_FETCH_ADD dqpn 0x000012 psn 0x000100 "
                      "[Malformed: AtomicETH at byte 54: needs 28 bytes, 8 remain (RC_FETCH_ADD "
                      "implies AtomicETH)]"),
            std::string::npos)
      << line;
}

TEST(FrameText, ABthCutShortShowsTheHeadersUpToUdp) {
  auto frame = wire::testing::rc_ack_ipv4();
  frame.resize(42 + 6);
  frame[14 + 3] = 20 + 8 + 6;
  frame[14 + 20 + 5] = 8 + 6;
  const std::string line = malformed_line(1, kTime, refused(frame));
  EXPECT_NE(line.find("/ UDP 49443 > 4791 len 14 [Malformed: BTH at byte 42: needs 12 bytes, 6 "
                      "remain]"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("BTH RC_"), std::string::npos) << line;
}

TEST(FrameText, AFrameCutInItsEthernetHeaderShowsTheErrorAlone) {
  const std::vector<uint8_t> frame(5, 0);
  EXPECT_EQ(malformed_line(2, kTime, refused(frame)),
            "     2 1700000106.000000001 [Malformed: Ether at byte 0: needs 14 bytes, 5 remain]");
}

TEST(FrameText, OtherExtendedHeadersShowEveryFieldByName) {
  // RC_SEND_ONLY_WITH_IMMEDIATE whose frame ends before the ICRC: ImmDt read, ICRC missing.
  auto frame = wire::testing::rc_ack_ipv4();
  frame[42] = wire::kOpRcSendOnlyWithImmediate;
  frame.resize(frame.size() - 4);
  frame[14 + 3] -= 4;
  frame[14 + 20 + 5] -= 4;
  const std::string line = malformed_line(1, kTime, refused(frame));
  EXPECT_NE(line.find("/ ImmDt imm 520093697 [Malformed: ICRC at byte 58"), std::string::npos)
      << line;
}

// An Ext frame of `opcode` from 198.18.0.1 to 198.18.0.2, TVer 1, decoded back.
wire::DecodedRoce ext_frame(uint8_t opcode, void (*fill)(wire::RocePacket&)) {
  wire::RocePacket p;
  wire::Ipv4 ip;
  ip.src = *wire::Ipv4Address::parse("198.18.0.1");
  ip.dst = *wire::Ipv4Address::parse("198.18.0.2");
  p.ip = ip;
  p.udp.sport = 0xc000;
  p.udp.dport = wire::kRoceV2Port;
  p.bth.opcode = opcode;
  p.bth.version = wire::kExtVersion;
  p.bth.dqpn = 0x12;
  p.bth.psn = 0x100;
  fill(p);
  const std::vector<uint8_t> frame = wire::build_frame(p);
  auto d = wire::decode_frame(frame);
  EXPECT_TRUE(d);
  return d ? std::get<wire::DecodedRoce>(*d) : wire::DecodedRoce{};
}

TEST(FrameText, AnExtAckShowsItsCongestionEchoesAndItsCreditLimit) {
  const auto d = ext_frame(wire::kOpRcAcknowledge, [](wire::RocePacket& p) {
    p.aeth = wire::Aeth{wire::kAckCreditInvalid, 1};
    p.sacketh = wire::Sacketh{};
    p.sacketh->sack_ref = 0x100;
    p.sacketh->mpr = 8;
    p.sacketh->ece = 1;
    p.sacketh->ce_count = 3;
    p.sacketh->tse = 1;
    p.sacketh->ts_echo = 0x2222;
    p.sacketh->crv = 1;
    p.sacketh->credit = 528;
  });
  const std::string line = roce_line(1, kTime, d);
  EXPECT_NE(line.find("mpr 8 ce 3 ece ts_echo 0x00002222 credit 528 len 0"), std::string::npos)
      << line;
}

TEST(FrameText, ACreditPacketShowsItsLimit) {
  const auto d = ext_frame(wire::kOpExtCredit,
                           [](wire::RocePacket& p) { p.creth = wire::Creth{.credit = 80}; });
  const std::string line = roce_line(1, kTime, d);
  EXPECT_NE(line.find("psn 0x000100 credit 80 len 0 icrc ok"), std::string::npos) << line;
}

}  // namespace
}  // namespace mr::cli
