#include "harness/engine/frame_summary.h"

#include <gtest/gtest.h>

#include "harness/script/parser.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"

namespace mr::engine {
namespace {

// The expected packet in a report has the shape of decode --json, the actual one's: a
// 64-bit value above 2^53 - 1 is a decimal string there, so it is here too.
TEST(ExpectedJson, A64BitFieldAboveTwoToThe53IsADecimalStringAsInDecodeJson) {
  const auto parsed = script::parse_script(
      "# tp: X-1 clause: MR-QS-03\n# purpose: p\n"
      "0 > BTH(opcode=RC_RDMA_WRITE_ONLY, psn=P) / RETH(va=0xffff800000000000, dlen=*)\n",
      "x.mrt");
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string();
  const auto& line = std::get<script::PacketLine>(parsed.script.statements.at(0));
  SymbolTable symbols;
  symbols.set("P", 5);
  const auto j = expected_json(line.packet, symbols);
  EXPECT_EQ(j["layers"], nlohmann::ordered_json({"BTH", "RETH"}));
  EXPECT_EQ(j["BTH"]["psn"], 5);
  EXPECT_EQ(j["RETH"]["va"], "18446603336221196288");
  EXPECT_EQ(j["RETH"]["dlen"], "*");
}

// An Ext packet's ladder line names its plane, EV and retransmission mark; an Ext ACK's, its
// cumulative PSN, what its bitmap reports after it as ranges, its EV echo and its flags.
wire::RocePacket ext_packet(uint8_t opcode, uint32_t psn) {
  wire::RocePacket p;
  p.eth.type = wire::kEtherTypeIpv4;
  wire::Ipv4 ip;
  ip.src = *wire::Ipv4Address::parse("198.18.0.2");
  ip.dst = *wire::Ipv4Address::parse("198.18.0.1");
  p.ip = ip;
  p.udp.dport = 4791;
  p.bth.opcode = opcode;
  p.bth.version = wire::kExtVersion;
  p.bth.psn = psn;
  p.bth.dqpn = 0x11;
  return p;
}

TEST(FrameSummary, AnExtRequestShowsItsPlaneEvAndRetransmissionMark) {
  wire::RocePacket p = ext_packet(wire::kOpRcSendOnly, 0xa1);
  p.mxh = wire::Mxh{};
  p.mxh->plane = 2;
  p.mxh->ev = 0xc103;
  p.mxh->retx = 1;
  const std::string s = frame_summary(wire::build_frame(p));
  EXPECT_NE(s.find("; plane 2 ev 0xc103 retx"), std::string::npos) << s;
}

TEST(FrameSummary, AnExtAckShowsWhatItsBitmapReportsAfterTheCumulativePsnAsRanges) {
  wire::RocePacket p = ext_packet(wire::kOpRcAcknowledge, 0xa0);
  p.aeth = wire::Aeth{wire::kSyndromeAck, 1};
  p.sacketh = wire::Sacketh{};
  p.sacketh->sack_ref = 0xa0;  // (C + 1) rounded down to 8
  p.sacketh->mpr = 8;
  // bit i = PSN 0xa0 + i: 0xa0 (C itself), 0xa2-0xa5 and 0xa8 received.
  p.sacketh->bitmap = 0b1'0011'1101ULL;
  p.sacketh->ev_echo = 0xc103;
  p.sacketh->ara = 1;
  const std::string s = frame_summary(wire::build_frame(p));
  EXPECT_NE(s.find("; C 0x0000a0 sacked 0x0000a2-0x0000a5,0x0000a8 ev_echo 0xc103 ara"),
            std::string::npos)
      << s;
  p.sacketh->bitmap = 1;  // nothing after C
  const std::string none = frame_summary(wire::build_frame(p));
  EXPECT_NE(none.find("sacked none"), std::string::npos) << none;
}

}  // namespace
}  // namespace mr::engine
