// The engine against the embedded reference DUT: a correct device passes, and each broken
// variant (a mutant) fails with a message that names the line and the field.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/fault_port.h"
#include "harness/engine/suite_runner.h"
#include "harness/engine/test_runner.h"
#include "harness/engine/testing/reference_run.h"
#include "harness/script/command_schema.h"
#include "harness/script/parser.h"

namespace mr::engine {
namespace {

constexpr const char* kHeader = "# tp: T-1\n# clause: MR-AK-01\n# purpose: p\n# pics: rc.send\n";

Pixit pixit() {
  auto p = Pixit::load("testcases/pixit/default.pixit.json");
  EXPECT_TRUE(p) << p.error();
  return *p;
}

report::TestResult run(const std::string& body, std::vector<std::string> mutants = {}) {
  return testing::run_on_reference(body, {.header = kHeader,
                                          .pics = {{"rc.send", true}, {"rc.read", false}},
                                          .mutants = std::move(mutants)});
}

std::string failures(const report::TestResult& r) { return testing::failures_text(r); }

constexpr const char* kSendOnly = R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=2 len=4096
0   < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"hello world")
+0  > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
dut expect_completion A status=SUCCESS opcode=RECV len=11
dut expect_mem A offset=0 data=b"hello world"
)";

TEST(Engine, SendOnlyPassesOnTheReference) {
  const auto r = run(kSendOnly);
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  EXPECT_EQ(r.packets.size(), 2U);
}

// Scapy's UDP(chksum=None) on an injected packet: the builder computes the checksum (0xbeef
// would be a wrong one that a Linux receiver drops before RoCE sees it).
TEST(Engine, UdpChksumNoneSendsTheComputedChecksum) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=1 len=64
0   < UDP(chksum=None)/BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"checksummed")
+0  > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
)");
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  ASSERT_FALSE(r.packets.empty());
  EXPECT_NE(r.packets[0].decoded["UDP"]["chksum"].get<int>(), 0);
}

// A UD connection: an injected UD_SEND_ONLY without a DETH gets the connection's (the DUT
// QP's Q_Key, the tester's QPN), so it is delivered; a DUT send is matched with its DETH.
constexpr const char* kUdExchange = R"(dut qp A = create_qp(type=UD, mtu=1024, qkey=0x1234)
dut post_recv A count=1 len=256 wr_id=3
0   < BTH(opcode=UD_SEND_ONLY, psn=P)/Raw(load=b"datagram")
+0~0.05 > none
dut expect_completion A status=SUCCESS opcode=RECV len=48 src_qp=T wr_id=3
dut expect_mem A offset=40 data=b"datagram"
dut post_send A opcode=SEND len=4 qkey=0x80000000 wr_id=4
*   > BTH(opcode=UD_SEND_ONLY, psn=Q, ackreq=0)/DETH(qkey=0x1234)/Raw(len=4)
dut expect_completion A status=SUCCESS opcode=SEND wr_id=4
)";

TEST(Engine, UdConnectionFillsAndMatchesTheDeth) {
  const auto r = run(kUdExchange);
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  ASSERT_FALSE(r.packets.empty());
  EXPECT_EQ(r.packets[0].decoded["DETH"]["qkey"].get<uint64_t>(), 0x1234U);
}

TEST(Engine, UdMutantsFailTheUdExchange) {
  for (const char* m :
       {"grh-area-not-filled", "controlled-qkey-ignored", "ud-source-qp-not-reported"}) {
    const auto r = run(kUdExchange, {m});
    EXPECT_EQ(r.verdict, report::Verdict::kFail) << m << failures(r);
  }
}

TEST(Engine, UcQpSendsUcOpcodesAndRefusesUdArguments) {
  auto r = run(R"(dut qp A = create_qp(type=UC, mtu=1024)
dut post_send A opcode=SEND len=10 wr_id=1
*   > BTH(opcode=UC_SEND_ONLY, psn=Q, ackreq=0)/Raw(len=10)
dut expect_completion A status=SUCCESS opcode=SEND wr_id=1
)");
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  r = run("dut qp A = create_qp(type=UC, mtu=1024)\ndut post_send A opcode=SEND len=1 qkey=5\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  // An unknown QP type never reaches the DUT: the parser refuses it (command_schema).
  const auto parsed =
      script::parse_script(std::string(kHeader) + "dut qp A = create_qp(type=XRC)\n", "t.mrt");
  ASSERT_EQ(parsed.diagnostics.size(), 1U);
  EXPECT_NE(parsed.diagnostics[0].message.find("unknown value 'XRC'"), std::string::npos);
}

TEST(Engine, CreateQpStateRtrLeavesTheQpReceivingButNotSending) {
  auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, state=RTR)
dut expect_state A state=RTR
dut post_recv A count=1 len=64
0   < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"rtr")
+0  > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
)");
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  // A send work request needs RTS (MR-QS-02): the DUT refuses it in RTR.
  r = run("dut qp A = create_qp(type=RC, state=RTR)\ndut post_send A opcode=SEND len=1 wr_id=1\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  EXPECT_NE(r.reason.find("post_send needs a QP in RTS"), std::string::npos) << r.reason;
  r = run("dut qp A = create_qp(type=RC, state=SQD)\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].message.find("state must be RTR or RTS"), std::string::npos);
}

TEST(Engine, DutOutOfResourcesMakesTheTestInconclusiveNotAnError) {
  // The reference's receive queue holds 1024 WQEs (create_qp's max_recv_wr): the 1025th
  // post is ENOSPC, a limit of the DUT, not a fault of the script.
  const auto r = run("dut qp A = create_qp(type=RC)\ndut post_recv A count=1025 len=8\n");
  EXPECT_EQ(r.verdict, report::Verdict::kInconc) << r.reason;
  EXPECT_NE(r.reason.find("the DUT lacks the resources this test needs: ENOSPC"), std::string::npos)
      << r.reason;
  EXPECT_EQ(run("dut qp A = create_qp(type=RC)\ndut post_recv A count=1024 len=8\n").verdict,
            report::Verdict::kPass);
}

TEST(Engine, WrongMsnMutantFailsNamingLineAndField) {
  const auto r = run(kSendOnly, {"wrong-msn"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].line, 8);
  EXPECT_EQ(r.failures[0].field, "AETH.msn");
  EXPECT_EQ(r.failures[0].expected, "0x000001 (1)");
  EXPECT_EQ(r.failures[0].actual, "0x000002 (2)");
}

// A failure carries the clauses of the test it fails, for every report to name; a harness
// error breaks none.
TEST(Engine, AFailureIsAgainstTheClausesItsTestCites) {
  const auto r = run(kSendOnly, {"wrong-msn"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail);
  ASSERT_FALSE(r.failures.empty());
  for (const auto& f : r.failures)
    EXPECT_EQ(f.clauses, std::vector<std::string>{"MR-AK-01"}) << f.field;
  const auto error = run("dut qp A = create_qp(type=RC)\n0 < BTH(opcode=RC_SEND_ONLY, psn=Z)\n");
  ASSERT_EQ(error.verdict, report::Verdict::kError);
  ASSERT_FALSE(error.failures.empty());
  EXPECT_TRUE(error.failures[0].clauses.empty());
}

constexpr const char* kSequenceError = R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=4 len=4096
0      < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=bytes(64))
+0     > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
+0     < BTH(opcode=RC_SEND_ONLY, psn=P+2, ackreq=1)/Raw(load=bytes(64))
+0     > BTH(opcode=RC_ACKNOWLEDGE, psn=P+1)/AETH(syndrome=NAK_PSN_SEQUENCE_ERROR)
+0     < BTH(opcode=RC_SEND_ONLY, psn=P+3, ackreq=1)/Raw(load=bytes(64))
+0~0.1 > none
probe A psn=P+1
)";

TEST(Engine, OneNakPerSequenceErrorPassesAndTheMutantFails) {
  const auto good = run(kSequenceError);
  EXPECT_EQ(good.verdict, report::Verdict::kPass) << failures(good);
  const auto bad = run(kSequenceError, {"two-naks-per-sequence-error"});
  ASSERT_EQ(bad.verdict, report::Verdict::kFail);
  EXPECT_EQ(bad.failures[0].line, 12);
  EXPECT_NE(bad.failures[0].message.find("none was expected"), std::string::npos);
  const auto wrong_psn = run(kSequenceError, {"nak-carries-packet-psn"});
  ASSERT_EQ(wrong_psn.verdict, report::Verdict::kFail);
  EXPECT_EQ(wrong_psn.failures[0].field, "BTH.psn");
  // The script's expression stands beside the value it came to.
  EXPECT_EQ(wrong_psn.failures[0].expected.rfind("P+1 = 0x", 0), 0U)
      << wrong_psn.failures[0].expected;
  // The failure names the packet it is about, the DUT's NAK (the ladder highlights it): the
  // fourth of the exchange (SEND, ACK, SEND, NAK).
  const report::Failure& f = wrong_psn.failures[0];
  ASSERT_EQ(f.packet, 4U);
  const report::PacketRecord& nak = wrong_psn.packets.at(f.packet - 1);
  EXPECT_FALSE(nak.from_tester);
  EXPECT_EQ(nak.decoded["BTH"], f.actual_packet["BTH"]);
}

// packetdrill's rule: a DUT packet no line explains fails the test, and the failure cites
// the line it follows (the script's last), not line 0.
TEST(Engine, AnUnexpectedPacketAfterTheLastLineCitesThatLine) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=2 len=4096
0   < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"hello world")
dut expect_completion A status=SUCCESS opcode=RECV len=11
)");
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  ASSERT_EQ(r.failures.size(), 1U) << failures(r);
  EXPECT_EQ(r.failures[0].line, 8) << failures(r);  // kHeader's 4 lines + 4
  EXPECT_EQ(r.failures[0].expected, "no further packet");
  EXPECT_NE(r.failures[0].message.find("after the last line"), std::string::npos);
  EXPECT_EQ(r.failures[0].packet, 2U);  // the ACK, highlighted in the ladder
}

TEST(Engine, APayloadMismatchNamesItsFirstDifferingByte) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut write_mem A offset=0 data=b"0123456789abcdef"
0  < BTH(opcode=RC_RDMA_READ_REQUEST, psn=P, ackreq=1)/RETH(va=A.va, rkey=A.rkey, dlen=16)
+0 > BTH(opcode=RC_RDMA_READ_RESPONSE_ONLY, psn=P)/AETH(syndrome=ACK)/Raw(load=b"0123456789abXdef")
)");
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  ASSERT_EQ(r.failures.size(), 1U) << failures(r);
  EXPECT_EQ(r.failures[0].field, "Raw.load");
  EXPECT_EQ(r.failures[0].expected, "58646566");
  EXPECT_EQ(r.failures[0].actual, "63646566");
  EXPECT_NE(r.failures[0].message.find("differs from byte 12: 1 of 16 bytes differ"),
            std::string::npos)
      << r.failures[0].message;
}

TEST(Engine, AnExpectedPacketThatNeverComesFails) {
  const auto r = run(R"(dut qp A = create_qp(type=RC)
0  < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=bytes(8))
+0 > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK)
)");
  // No receive posted: the reference answers with an RNR NAK, not an ACK.
  ASSERT_EQ(r.verdict, report::Verdict::kFail);
  EXPECT_EQ(r.failures[0].field, "AETH.syndrome");
  EXPECT_EQ(r.failures[0].expected, "an ACK syndrome (0x00-0x1f)");
}

TEST(Engine, APacketEarlierThanItsToleranceFails) {
  const auto r = run(R"(dut qp A = create_qp(type=RC)
dut post_recv A
0     < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=bytes(8))
+0.5  > BTH(opcode=RC_ACKNOWLEDGE, psn=P)
)");
  ASSERT_EQ(r.verdict, report::Verdict::kFail);
  EXPECT_EQ(r.failures[0].field, "time");
}

// Two SENDs posted 30 ms apart (the expect_no_completion waits on the virtual clock) leave
// before the script's clock starts: `+0` after the first cannot hold them to 2 ms, since the
// set-up's time lies between them. It counts from the clock's start, and the ladder shows
// the first packet before it (a negative time).
TEST(Engine, ARelativeTimeAfterAPacketFromTheSetUpCountsFromTheClocksStart) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, timeout=20)
dut post_send A opcode=SEND len=4 offset=0 wr_id=1
dut expect_no_completion A window=30
dut post_send A opcode=SEND len=4 offset=0 wr_id=2
*   > BTH(opcode=RC_SEND_ONLY, psn=Q, ackreq=1)
+0  > BTH(opcode=RC_SEND_ONLY, psn=Q+1, ackreq=1)
0   < BTH(opcode=RC_ACKNOWLEDGE, psn=Q+1)/AETH(syndrome=ACK, msn=2)
dut expect_completion A status=SUCCESS opcode=SEND wr_id=1
dut expect_completion A status=SUCCESS opcode=SEND wr_id=2
)");
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  ASSERT_GE(r.packets.size(), 3U);
  EXPECT_LT(r.packets[0].t_ns, -30'000'000) << "the first SEND left 30 ms before the clock";
  EXPECT_LT(r.packets[1].t_ns, 1'000'000) << "the second SEND left as the clock started";
}

// After a packet of the exchange itself, a relative time is as strict as ever.
TEST(Engine, ARelativeTimeAfterAPacketOfTheExchangeKeepsItsTolerance) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, timeout=20)
dut post_recv A
0      < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=bytes(8))
+0     > BTH(opcode=RC_ACKNOWLEDGE, psn=P)
dut post_send A opcode=SEND len=4 offset=0 wr_id=1
+0.03  > BTH(opcode=RC_SEND_ONLY, psn=Q, ackreq=1)
)");
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  EXPECT_EQ(r.failures[0].field, "time") << failures(r);
}

TEST(Engine, ScriptMistakesAreHarnessErrorsNotFailures) {
  const auto r = run(R"(dut qp A = create_qp(type=RC)
0 < BTH(opcode=RC_SEND_ONLY, psn=Z)
)");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  EXPECT_NE(r.reason.find("unknown symbol 'Z'"), std::string::npos) << r.reason;
  // A field BTH does not have never gets that far: the parser refuses it (layer_schema).
  const auto parsed = script::parse_script(
      std::string(kHeader) +
          "dut qp A = create_qp(type=RC)\n0 < BTH(opcode=RC_SEND_ONLY, psnn=P)\n",
      "t.mrt");
  ASSERT_EQ(parsed.diagnostics.size(), 1U);
  EXPECT_EQ(parsed.diagnostics[0].message, "BTH has no field 'psnn' (did you mean 'psn'?)");
}

// A limit the DUT states in its capabilities is the symbol limits.NAME; one it does not
// state leaves the test that needs it inconclusive (the DUT may simply not say), not failed.
TEST(Engine, ALimitTheDutDoesNotStateMakesItsTestInconclusive) {
  const std::string script =
      std::string(kHeader) + "let n = limits.max_ext_ooo_messages\nlet m = n + 1\n";
  const auto parsed = script::parse_script(script, "t.mrt");
  ASSERT_TRUE(parsed.ok());
  const Pixit px = pixit();
  dut::EmbeddedReferencePort port(px, {});
  TestOptions options;
  options.pics = {{"rc.send", true}};
  const auto unstated = run_test(parsed.script, port, px, options);
  EXPECT_EQ(unstated.verdict, report::Verdict::kInconc);
  EXPECT_NE(unstated.reason.find("state no limits.max_ext_ooo_messages"), std::string::npos)
      << unstated.reason;
  options.dut_limits = {{"max_ext_ooo_messages", 256}};
  EXPECT_EQ(run_test(parsed.script, port, px, options).verdict, report::Verdict::kPass);
}

// `assume` is `check` for what the test needs rather than judges: false, the test ends
// inconclusive at that line (nothing after it runs, so the failing check below never does);
// true, the test goes on and its checks judge as before.
TEST(Engine, AFalseAssumptionMakesTheTestInconclusiveWhereACheckFailsIt) {
  const auto script = [](const std::string& bound) {
    return std::string(kHeader) + "let n = limits.max_ext_ooo_messages\nassume n <= " + bound +
           "\nassume distinct [n, 0]\ncheck n == 1\n";
  };
  const Pixit px = pixit();
  dut::EmbeddedReferencePort port(px, {});
  TestOptions options;
  options.pics = {{"rc.send", true}};
  options.dut_limits = {{"max_ext_ooo_messages", 256}};
  const auto outside = script::parse_script(script("100"), "t.mrt");
  ASSERT_TRUE(outside.ok());
  const auto inconc = run_test(outside.script, port, px, options);
  EXPECT_EQ(inconc.verdict, report::Verdict::kInconc);
  EXPECT_NE(inconc.reason.find("assume: expected n = 0x0100 (256) <= 0x0064 (100)"),
            std::string::npos)
      << inconc.reason;
  EXPECT_TRUE(inconc.failures.empty());
  const auto inside = script::parse_script(script("1000"), "t.mrt");
  ASSERT_TRUE(inside.ok());
  const auto failed = run_test(inside.script, port, px, options);
  EXPECT_EQ(failed.verdict, report::Verdict::kFail);
  ASSERT_EQ(failed.failures.size(), 1U);
  EXPECT_EQ(failed.failures[0].message, "check: the values differ");
}

TEST(Engine, TestsThePicsDoesNotClaimAreNotApplicable) {
  auto parsed =
      script::parse_script("# tp: T\n# clause: MR-RD-01\n# purpose: p\n# pics: rc.read\n", "t.mrt");
  const Pixit px = pixit();
  dut::EmbeddedReferencePort port(px, {});
  TestOptions options;
  options.pics = {{"rc.read", false}};
  EXPECT_EQ(run_test(parsed.script, port, px, options).verdict, report::Verdict::kNotApplicable);
}

TEST(SuiteFilter, CommaSeparatedGlobsSelectByTpIdOrPath) {
  const std::string path = "testcases/base/psn/RC-PSN-004.mrt";
  EXPECT_TRUE(filter_selects("", path, "RC-PSN-004"));
  EXPECT_TRUE(filter_selects("RC-PSN-00*", path, "RC-PSN-004"));
  EXPECT_TRUE(filter_selects("RC-WF-001,RC-PSN-004", path, "RC-PSN-004"));
  EXPECT_TRUE(filter_selects("RC-WF-*,testcases/base/psn/*", path, "RC-PSN-004"));
  EXPECT_TRUE(filter_selects("base/psn", path, "RC-PSN-004"));  // a substring of the path
  EXPECT_FALSE(filter_selects("RC-WF-*,RC-RD-*", path, "RC-PSN-004"));
  EXPECT_FALSE(filter_selects(",", path, "RC-PSN-004"));
}

TEST(FaultEvents, ADroppedSendIsNeverSeenByTheDutAndTheEventIsRecorded) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=2 len=4096
event drop A dir=tester psn=P
0        < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"lost")
+0~0.01  > none
dut expect_no_completion A window=5
)");
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  bool recorded = false;
  for (const auto& p : r.packets) recorded |= p.script_ref.find("event drop") != std::string::npos;
  EXPECT_TRUE(recorded);
}

TEST(FaultEvents, WithoutTheDropTheSameScriptFails) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=2 len=4096
0        < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"lost")
+0~0.01  > none
)");
  EXPECT_EQ(r.verdict, report::Verdict::kFail);
}

TEST(FaultEvents, AnEventWhoseFrameNeverPassesFailsNamingItsLine) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=2 len=4096
event drop A dir=tester psn=P+5
0   < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"x")
+0  > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
)");
  ASSERT_EQ(r.verdict, report::Verdict::kFail);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures.back().field, "event");
  EXPECT_EQ(r.failures.back().line, 7);  // kHeader is 4 lines
}

TEST(FaultEvents, BadArgumentsAreParseErrorsNamingTheArgument) {
  const auto parsed = script::parse_script(
      std::string(kHeader) +
          "dut qp A = create_qp(type=RC, mtu=1024)\n"
          "event delay A dir=sideways psn=P us=5\nevent explode A dir=dut psn=P\n",
      "t.mrt");
  ASSERT_EQ(parsed.diagnostics.size(), 2U);
  EXPECT_NE(parsed.diagnostics[0].message.find("event delay dir: unknown value 'sideways'"),
            std::string::npos)
      << parsed.diagnostics[0].message;
  EXPECT_NE(parsed.diagnostics[1].message.find("unknown command 'event explode'"),
            std::string::npos);
  EXPECT_FALSE(fault_action_from_name("explode").has_value());
}

// The parser's event names are the fault actions the engine arms, no more and no fewer.
TEST(FaultEvents, EveryEventTheSchemaNamesIsAFaultActionAndTheReverse) {
  const auto names = script::command_names("event");
  for (std::string_view n : names)
    EXPECT_TRUE(fault_action_from_name(std::string(n)).has_value()) << n;
  for (size_t i = 1; i < io::kImpairmentActionCount; ++i) {
    const auto name = io::impairment_action_name(static_cast<FaultAction>(i));
    EXPECT_NE(std::ranges::find(names, name), names.end()) << name;
  }
}

}  // namespace
}  // namespace mr::engine
