// Extension-mode exchanges against the embedded reference: the tester offers its MXCAP at
// INIT to RTR (create_qp ext=1), writes MXH and SACKETH in packet lines, and a SACK
// bitmap as the PSNs it reports; a wrong expectation fails with both sides named.
#include <gtest/gtest.h>

#include <utility>

#include "harness/engine/testing/reference_run.h"

namespace mr::engine {
namespace {

constexpr const char* kHeader = "# tp: T-1\n# clause: MR-SA-20\n# purpose: p\n# pics: ext.sack\n";

report::TestResult run(const std::string& body, std::vector<std::string> mutants = {}) {
  return testing::run_on_reference(
      body, {.header = kHeader, .pics = {{"ext.sack", true}}, .mutants = std::move(mutants)});
}

std::string failures(const report::TestResult& r) { return testing::failures_text(r); }

// A SEND that overtakes its predecessor, with AR = 1: an ACK of its own at the cumulative
// PSN, ARA = 1, its EV echoed, the bitmap reporting it; the gap filled, both complete.
std::string overtaking_send(const std::string& first_ack_sacked) {
  return R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1)
dut post_recv A count=2 len=256
0    < BTH(opcode=RC_SEND_ONLY, psn=P+1)/MXH(ar=1, ev=7, msn=2, rqsn=2)/Raw(load=b"second")
+0   > BTH(opcode=RC_ACKNOWLEDGE, psn=P-1)/AETH(syndrome=ACK)/SACKETH(ara=1, ev_echo=7, sacked=)" +
         first_ack_sacked + R"()
+0.001 < BTH(opcode=RC_SEND_ONLY, psn=P)/MXH(ar=1, ev=8, msn=1, rqsn=1)/Raw(load=b"first")
+0   > BTH(opcode=RC_ACKNOWLEDGE, psn=P+1)/AETH(syndrome=ACK, msn=2)/SACKETH(ara=1, ev_echo=8, sacked=[])
dut expect_completion A status=SUCCESS opcode=RECV len=5
dut expect_completion A status=SUCCESS opcode=RECV len=6
)";
}

TEST(ExtExchange, AnOvertakingArSendIsAnsweredAtOnceWithABitmapThatReportsIt) {
  const auto r = run(overtaking_send("[P+1]"));
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  ASSERT_GE(r.packets.size(), 2U);
  EXPECT_EQ(r.packets[0].decoded["BTH"]["version"].get<int>(), 1);  // TVer 1 by default
}

TEST(ExtExchange, AWrongSackedListFailsWithBothListsAndTheBitmapsRange) {
  const auto r = run(overtaking_send("[P+2]"));
  ASSERT_EQ(r.verdict, report::Verdict::kFail);
  ASSERT_EQ(r.failures.size(), 1U) << failures(r);
  const auto& f = r.failures[0];
  EXPECT_EQ(f.field, "SACKETH.sacked");
  EXPECT_EQ(f.line, 8);
  EXPECT_EQ(f.expected.rfind("[P+2] = [0x", 0), 0U) << f.expected;
  EXPECT_NE(f.message.find("the bitmap covers 0x"), std::string::npos) << f.message;
}

// A block without the OOO bit does not enable extension mode (MR-EX-01): the QP answers as
// a base-mode QP, TVer 0 and no SACKETH, which the connection then expects.
TEST(ExtExchange, AnMxcapWithoutOooLeavesTheQpInBaseMode) {
  const auto r = run(
      R"(dut qp A = create_qp(type=RC, mtu=1024, mxcap=b"MRX1\x01\x01\x00\x08\x01\x00\x00\x01\x00\x00\x00\x00")
dut post_recv A count=1 len=256
0    < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"base")
+0   > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
)");
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  ASSERT_EQ(r.packets.size(), 2U);
  EXPECT_FALSE(r.packets[1].decoded.contains("SACKETH"));
}

// The connection's mode is checked on every DUT packet: a QP that stayed in base mode when
// the tester offered a valid MXCAP (MR-EX-01) fails on TVer, whatever the line names.
TEST(ExtExchange, AQpLeftInBaseModeFailsOnTheVersionOfItsFirstPacket) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1)
dut post_send A opcode=SEND len=8
*    > BTH(opcode=RC_SEND_ONLY, psn=Q)/Raw(len=8)
)",
                     {"ext-never-negotiated"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  EXPECT_EQ(r.failures[0].field, "BTH.version") << failures(r);
  EXPECT_EQ(r.failures[0].expected, "0x1 (1) (extension mode)");
  const auto correct = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1)
dut post_send A opcode=SEND len=8
*    > BTH(opcode=RC_SEND_ONLY, psn=Q)/MXH(msn=1)/Raw(len=8)
+0   < BTH(opcode=RC_ACKNOWLEDGE, psn=Q)/AETH(syndrome=ACK, msn=1)/SACKETH(mpr=8, sacked=[])
dut expect_completion A status=SUCCESS opcode=SEND
)");
  EXPECT_EQ(correct.verdict, report::Verdict::kPass) << failures(correct);
}

// An injected ACK's SACKETH is a conformant one where the script is silent (spec 19.3):
// R = (C + 1) rounded down to 8, the MPR ext=1 offered, the bitmap up to C set.
TEST(ExtExchange, AnInjectedAckGetsItsReferenceWindowAndBitmapFromItsCumulativePsn) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1)
dut post_send A opcode=SEND len=8
*    > BTH(opcode=RC_SEND_ONLY, psn=Q)/MXH(msn=1)/Raw(len=8)
+0   < BTH(opcode=RC_ACKNOWLEDGE, psn=Q)/AETH(syndrome=ACK, msn=1)/SACKETH(sacked=[])
dut expect_completion A status=SUCCESS opcode=SEND
)");
  ASSERT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  ASSERT_EQ(r.packets.size(), 2U);
  const auto& ack = r.packets[1].decoded;
  const auto q = ack["BTH"]["psn"].get<uint32_t>();
  const auto ref = ack["SACKETH"]["sack_ref"].get<uint32_t>();
  EXPECT_EQ(ref, (q + 1) & 0xfffff8);
  EXPECT_EQ(ack["SACKETH"]["mpr"].get<int>(), 8);
  const auto& field = ack["SACKETH"]["bitmap"];  // a string above 2^53 (packet_json)
  const uint64_t bitmap =
      field.is_string() ? std::stoull(field.get<std::string>(), nullptr, 0) : field.get<uint64_t>();
  EXPECT_EQ(bitmap, (uint64_t{1} << (q - ref + 1)) - 1) << "bits for " << ref << ".." << q;
}

TEST(ExtExchange, AnInjectedSackedPsnTheBitmapCannotHoldIsAnError) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1)
0    < BTH(opcode=RC_ACKNOWLEDGE, psn=Q)/AETH(syndrome=ACK)/SACKETH(sacked=[Q+100])
)");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  EXPECT_NE(r.reason.find("is not among the 64 PSNs the bitmap covers"), std::string::npos)
      << r.reason;
}

}  // namespace
}  // namespace mr::engine
