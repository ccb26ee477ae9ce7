#include "reference/wire/packet_json.h"

#include <gtest/gtest.h>

#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/test_frames.h"

namespace mr::wire {
namespace {

using testing::from_hex;

TEST(PacketJson, UsesScapyLayerAndFieldNames) {
  const auto frame = testing::rc_ack_ipv4();
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  const auto j = to_json(std::get<DecodedRoce>(*d));
  EXPECT_EQ(j["layers"], nlohmann::ordered_json({"Ether", "IP", "UDP", "BTH", "AETH"}));
  EXPECT_EQ(j["opcode_name"], "RC_ACKNOWLEDGE");
  EXPECT_EQ(j["IP"]["src"], "10.0.0.1");
  EXPECT_EQ(j["IP"]["flags"], 2);  // DF
  EXPECT_EQ(j["UDP"]["dport"], 4791);
  EXPECT_EQ(j["BTH"]["opcode"], 0x11);
  EXPECT_EQ(j["BTH"]["dqpn"], 0x12);
  EXPECT_EQ(j["BTH"]["psn"], 0x100);
  EXPECT_EQ(j["AETH"]["syndrome"], 0x1f);
  EXPECT_EQ(j["AETH"]["msn"], 1);
  EXPECT_EQ(j["icrc"], 0x75b3aa37U);
  EXPECT_EQ(j["icrc_ok"], true);
}

TEST(PacketJson, ShowsPayloadAndPadAsHex) {
  const auto frame = testing::rc_send_only_ipv6();
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  const auto j = to_json(std::get<DecodedRoce>(*d));
  EXPECT_EQ(j["IPv6"]["src"], "2001:db8::1");
  EXPECT_EQ(j["payload"], "68656c6c6f");
  EXPECT_EQ(j["pad"], "000000");
  EXPECT_EQ(j["payload_len"], 5);
}

TEST(PacketJson, ErrorsNameHeaderFieldAndOffset) {
  const auto j = to_json(ParseError{"BTH", "padcount", 43, "pad count 3 exceeds"});
  EXPECT_EQ(j["error"]["header"], "BTH");
  EXPECT_EQ(j["error"]["field"], "padcount");
  EXPECT_EQ(j["error"]["offset"], 43);
}

TEST(PacketJson, ARefusedFrameCarriesTheHeadersReadBeforeTheError) {
  auto frame = testing::rc_ack_ipv4();
  frame[42 + 1] = 0x30;  // padcount 3 on an ACK with no payload
  const auto d = decode_frame(frame, Framing::kEthernet);
  ASSERT_FALSE(d);
  const auto j = to_json(d.error());
  EXPECT_EQ(j["roce"], false);
  EXPECT_EQ(j["opcode_name"], "RC_ACKNOWLEDGE");
  EXPECT_EQ(j["layers"], nlohmann::ordered_json({"Ether", "IP", "UDP", "BTH", "AETH"}));
  EXPECT_EQ(j["BTH"]["psn"], 0x100);
  EXPECT_EQ(j["AETH"]["msn"], 1);
  EXPECT_EQ(j["error"]["field"], "padcount");
  EXPECT_EQ(j["error"]["offset"], 43);
  EXPECT_FALSE(j.contains("payload"));
}

TEST(PacketJson, ARefusedFrameCutInItsLinkHeaderHasNoLayers) {
  const std::vector<uint8_t> frame(10, 0);
  const auto d = decode_frame(frame, Framing::kEthernet);
  ASSERT_FALSE(d);
  const auto j = to_json(d.error());
  EXPECT_EQ(j["layers"], nlohmann::ordered_json::array());
  EXPECT_FALSE(j.contains("opcode_name"));
  EXPECT_EQ(j["error"]["header"], "Ether");
}

TEST(PacketJson, ACookedFrameShowsItsCookedHeaderInsteadOfEther) {
  auto frame = from_hex("00040001000602000000000100000800");  // SLL, IPv4
  const auto ethernet = testing::rc_ack_ipv4();
  frame.insert(frame.end(), ethernet.begin() + 14, ethernet.end());
  const auto d = decode_frame(frame, Framing::kLinuxSll);
  ASSERT_TRUE(d);
  const auto j = to_json(std::get<DecodedRoce>(*d));
  EXPECT_EQ(j["layers"], nlohmann::ordered_json({"CookedLinux", "IP", "UDP", "BTH", "AETH"}));
  EXPECT_FALSE(j.contains("Ether"));
  EXPECT_EQ(j["CookedLinux"]["proto"], 0x0800);
  EXPECT_EQ(j["CookedLinux"]["pkttype"], 4);
  EXPECT_EQ(j["icrc_ok"], true);
}

}  // namespace
}  // namespace mr::wire

namespace mr::wire {
namespace {

TEST(PacketFromJson, RoundTripsADecodedPacket) {
  for (const auto& frame :
       {testing::rc_ack_ipv4(), testing::rc_send_only_ipv6(), testing::cx4_cnp()}) {
    const auto d = decode_frame(frame);
    ASSERT_TRUE(d);
    const auto j = nlohmann::json::parse(to_json(std::get<DecodedRoce>(*d)).dump());
    auto owned = packet_from_json(j);
    ASSERT_TRUE(owned) << owned.error();
    EXPECT_EQ(build_frame(owned->view(), {.fill_ip_length = false,
                                          .fill_udp_length = false,
                                          .fill_ip_checksum = false,
                                          .fill_icrc = false}),
              frame);
  }
}

// jq and JavaScript read numbers as doubles: above 2^53 - 1 a 64-bit field is a string.
TEST(PacketJson, A64BitFieldAboveTwoToThe53IsADecimalStringAndReadsBack) {
  const auto written = packet_from_json(nlohmann::json::parse(R"({
      "Ether": {"type": 2048}, "IP": {"src": "198.18.0.1", "dst": "198.18.0.2"},
      "UDP": {"sport": 49152, "dport": 4791}, "BTH": {"opcode": 20, "dqpn": 17, "psn": 5},
      "AtomicETH": {"va": "18446603336221196288", "rkey": 7, "swap": "0xffffffffffffffff",
                    "comp": 9007199254740991}})"));
  ASSERT_TRUE(written) << written.error();
  const auto frame = build_frame(written->view());
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  const auto j = to_json(std::get<DecodedRoce>(*d));
  EXPECT_EQ(j["AtomicETH"]["va"], "18446603336221196288");
  EXPECT_EQ(j["AtomicETH"]["swap"], "18446744073709551615");
  EXPECT_EQ(j["AtomicETH"]["comp"], 9007199254740991U);  // 2^53 - 1 is still exact
  EXPECT_EQ(j["AtomicETH"]["rkey"], 7);
  const auto again = packet_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(build_frame(again->view()), frame);
}

// Every Part II header, and a secure packet's SECH and tag, read back from the JSON shape.
TEST(PacketFromJson, RoundTripsASecureExtPacket) {
  RocePacket p;
  Ipv4 ip;
  ip.src = *Ipv4Address::parse("198.18.0.1");
  ip.dst = *Ipv4Address::parse("198.18.0.2");
  p.ip = ip;
  p.udp.dport = kRoceV2Port;
  p.bth.opcode = kOpRcAcknowledge;
  p.bth.version = kExtVersion;
  p.bth.resv7 = Bth::kResv7Sx;
  p.sech.emplace().pn = 0x7fffffffffffffffULL;
  p.sech->htag.bytes.fill(0xab);
  p.aeth.emplace().syndrome = kSyndromeAck;
  p.sacketh.emplace().sack_offset = 0xfff8;
  p.sec_tag.emplace().tag.bytes.fill(0xcd);
  const auto frame = build_frame(p);
  auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  const auto j = to_json(std::get<DecodedRoce>(*d));
  EXPECT_EQ(j["SECH"]["htag"], "abababababababab");
  auto back = packet_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(build_frame(back->view()), frame);
}

TEST(PacketFromJson, AStringIsReadOnlyForA64BitField) {
  auto narrow = packet_from_json(nlohmann::json::parse(R"({"BTH": {"psn": "5"}})"));
  ASSERT_FALSE(narrow);
  EXPECT_EQ(narrow.error(), "BTH.psn: \"5\" is not an unsigned integer");
  auto junk = packet_from_json(nlohmann::json::parse(R"({"RETH": {"va": "12x"}})"));
  ASSERT_FALSE(junk);
  EXPECT_EQ(junk.error(), "RETH.va: \"12x\" is not an unsigned integer");
}

TEST(PacketFromJson, RejectsAValueWiderThanItsField) {
  auto r = packet_from_json(nlohmann::json::parse(R"({"BTH": {"psn": 16777216}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "BTH.psn: 16777216 does not fit in 24 bits");
}

TEST(PacketFromJson, RejectsAnUnknownField) {
  auto r = packet_from_json(nlohmann::json::parse(R"({"AETH": {"syndrome": 0, "msm": 1}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "AETH.msm: no such field");
}

TEST(PacketFromJson, RejectsAMalformedAddressAndHex) {
  auto a = packet_from_json(nlohmann::json::parse(R"({"IP": {"src": "198.18.0.300"}})"));
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error(), "IP.src: \"198.18.0.300\" is not an address");
  auto h = packet_from_json(nlohmann::json::parse(R"({"payload": "0g"})"));
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error(), "payload: 'g' is not a hex digit");
}

}  // namespace
}  // namespace mr::wire
