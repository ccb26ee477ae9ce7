// Driven exchanges against the embedded reference: the tester's reference QP does real
// work in either role, exact lines interleave with it, faults and seeded impairment act on
// its packets, and a broken DUT fails at the line that judges what it broke.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/test_runner.h"
#include "harness/engine/testing/reference_run.h"
#include "harness/script/parser.h"
#include "reference/io/capture_reader.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {
namespace {

constexpr const char* kHeader = "# tp: T-1\n# clause: MR-MP-13\n# purpose: p\n# pics: rc.write\n";

report::TestResult run(const std::string& body, std::vector<std::string> mutants = {},
                       uint64_t seed = 5, std::map<std::string, std::string> levels = {},
                       const std::string& capture = "") {
  return testing::run_on_reference(body, {.header = kHeader,
                                          .pics = {{"rc.write", true}, {"rc.send", true}},
                                          .mutants = std::move(mutants),
                                          .seed = seed,
                                          .clause_levels = std::move(levels),
                                          .capture_path = capture});
}

std::string failures(const report::TestResult& r) { return testing::failures_text(r); }

constexpr const char* kLossyWrite = R"(dut qp A = create_qp(type=RC, mtu=1024, mr_len=262144)
tester qp T = create_qp(mr_len=262144)
connect T A
impair dir=tester loss=2% reorder=1%
tester post_send T opcode=RDMA_WRITE len=262144 wr_id=1
tester expect_completion T status=SUCCESS opcode=RDMA_WRITE wr_id=1
dut expect_mem A offset=0 len=262144 pattern=T
)";

TEST(DrivenExchange, ACaptureThatCannotBeWrittenIsTheTestsErrorNotASilentGap) {
  const std::string capture = ::testing::TempDir() + "/no-such-folder/t.pcapng";
  auto r = run(kLossyWrite, {}, 5, {}, capture);
  EXPECT_EQ(r.verdict, report::Verdict::kError) << failures(r);
  EXPECT_EQ(r.reason.rfind("t.mrt:1: cannot write the capture " + capture + ": ", 0), 0U)
      << r.reason;
  EXPECT_TRUE(r.packets.empty());  // nothing ran: the DUT was not touched
}

TEST(DrivenExchange, ALossyWritePassesAndItsRetransmissionsAreOnTheWire) {
  const std::string capture = ::testing::TempDir() + "/lossy-write.pcapng";
  auto r = run(kLossyWrite, {}, 5, {}, capture);
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  // The ladder shows the first frames only; the capture has every one.
  auto reader = io::CaptureReader::open(capture);
  ASSERT_TRUE(reader) << reader.error().to_string();
  size_t naks = 0;
  size_t dropped = 0;
  uint64_t last_t_ns = 0;
  for (int i = 0; i < 100000; ++i) {
    auto f = reader->next();
    ASSERT_TRUE(f);
    if (!*f) break;
    // Frames the fault layer held back (reordered) are still in time order in the file.
    EXPECT_GE((*f)->timestamp_ns, last_t_ns);
    last_t_ns = (*f)->timestamp_ns;
    dropped += (*f)->comment.find("impair drop") != std::string::npos ? 1 : 0;
    auto d = wire::decode_frame((*f)->data);
    const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
    naks += roce && roce->packet.aeth &&
                    roce->packet.aeth->syndrome.value() == wire::kNakPsnSequenceError
                ? 1
                : 0;
  }
  EXPECT_GT(naks, 0U);
  EXPECT_GT(dropped, 0U);
}

TEST(DrivenExchange, ABrokenPlacementFailsAtTheMemoryLineNamingTheFirstByte) {
  auto r = run(kLossyWrite, {"write-placement-wraps-at-64k"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].line, 11);
  EXPECT_EQ(r.failures[0].field, "memory");
  // The data at offset 64 KiB and beyond overwrote the region's start.
  EXPECT_NE(r.failures[0].message.find("DUT memory differs from byte 0:"), std::string::npos)
      << r.failures[0].message;
}

TEST(DrivenExchange, TheSeedReplaysTheSameExchangeAndAnotherSeedChangesIt) {
  auto ladder = [](const report::TestResult& r) {
    std::string s;
    for (const auto& p : r.packets) s += p.summary + "|" + p.script_ref + "\n";
    return s;
  };
  const auto a = run(kLossyWrite, {}, 7);
  const auto b = run(kLossyWrite, {}, 7);
  const auto c = run(kLossyWrite, {}, 8);
  EXPECT_EQ(ladder(a), ladder(b));
  EXPECT_NE(ladder(a), ladder(c));
  bool seed_logged = false;
  for (const auto& p : a.packets) seed_logged |= p.summary.find(", seed ") != std::string::npos;
  EXPECT_TRUE(seed_logged);
}

TEST(DrivenExchange, ADutRequesterIsAnsweredWhileTheScriptWaitsOnTheDut) {
  constexpr const char* kScript = R"(dut qp A = create_qp(type=RC, mtu=4096, mr_len=131072)
dut fill_mem A
tester qp T = create_qp(mr_len=131072)
connect T A
dut post_send A opcode=RDMA_WRITE len=131072 remote_addr=T.va rkey=T.rkey wr_id=4
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=4
tester expect_mem T offset=0 len=131072 pattern=A
)";
  auto r = run(kScript);
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  EXPECT_EQ(run(kScript, {"write-gather-wraps-at-64k"}).verdict, report::Verdict::kFail);
}

// A `<` line goes out in the tester QP's name: the tester's next request follows its PSN,
// so the DUT takes it as new (ACK P+1), not as a duplicate of P.
TEST(DrivenExchange, ACraftedRequestMovesTheTesterQpsPsn) {
  auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=2 len=64
tester qp T = create_qp(mr_len=4096)
connect T A
0   < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"crafted")
+0  > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
tester post_send T opcode=SEND len=16 wr_id=2
*   > BTH(opcode=RC_ACKNOWLEDGE, psn=P+1)/AETH(syndrome=ACK, msn=2)
tester expect_completion T status=SUCCESS opcode=SEND wr_id=2
dut expect_completion A status=SUCCESS opcode=RECV len=7
dut expect_completion A status=SUCCESS opcode=RECV len=16
)");
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
}

// Exact expectations interleave with driven traffic: the tester's third packet is dropped
// and the DUT must NAK exactly that PSN among the ACKs of the stream.
TEST(DrivenExchange, AnExpectLineFindsTheNakAmongTheDrivenTraffic) {
  constexpr const char* kScript = R"(dut qp A = create_qp(type=RC, mtu=1024, mr_len=65536)
tester qp T = create_qp(mr_len=65536)
connect T A
event drop A dir=tester psn=T.P+2
tester post_send T opcode=RDMA_WRITE len=65536 wr_id=1
* > within 64 BTH(opcode=RC_ACKNOWLEDGE, psn=T.P+2)/AETH(syndrome=NAK_PSN_SEQUENCE_ERROR)
tester expect_completion T status=SUCCESS wr_id=1
)";
  auto r = run(kScript);
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  auto wrong = run(kScript, {"nak-carries-packet-psn"});
  EXPECT_EQ(wrong.verdict, report::Verdict::kFail) << failures(wrong);
}

// The trace checkers judge every exchange: a DUT whose last WRITE packet lacks AckReq still
// completes against a tolerant peer, and no line of the script looks at AckReq, yet the test
// fails, naming MR-AK-05 and the packet.
TEST(DrivenExchange, ATraceCheckerViolationFailsTheTestNamingTheClause) {
  constexpr const char* kScript = R"(dut qp A = create_qp(type=RC, mtu=4096, mr_len=65536)
dut fill_mem A
tester qp T = create_qp(mr_len=65536)
connect T A
dut post_send A opcode=RDMA_WRITE len=65536 remote_addr=T.va rkey=T.rkey wr_id=4
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=4
)";
  EXPECT_EQ(run(kScript).verdict, report::Verdict::kPass);
  auto r = run(kScript, {"ackreq-not-on-last"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  bool named = false;
  for (const auto& f : r.failures) {
    named |= f.field == "trace MR-AK-05" && f.line == 10 &&
             f.message.find("RC_RDMA_WRITE_LAST") != std::string::npos &&
             f.clauses == std::vector<std::string>{"MR-AK-05"};  // not the test's MR-MP-13
  }
  EXPECT_TRUE(named) << failures(r);
  // Were MR-AK-05 a SHOULD, the same exchange would pass, with the violation in the ladder.
  auto advisory = run(kScript, {"ackreq-not-on-last"}, 5, {{"MR-AK-05", "SHOULD"}});
  EXPECT_EQ(advisory.verdict, report::Verdict::kPass) << failures(advisory);
  bool noted = false;
  for (const auto& p : advisory.packets)
    noted |= p.summary.rfind("advisory (SHOULD MR-AK-05)", 0) == 0;
  EXPECT_TRUE(noted);
}

TEST(DrivenExchange, ScriptMistakesTheParserSeesAreDiagnosticsAtLineAndColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"tester post_send T opcode=RDMA_WRITE len=8\n",
       "t.mrt:5:1: tester post_send: no tester QP "
       "named 'T' before this line"},
      {"dut qp A = create_qp(type=RC)\ntester qp T = create_qp()\nconnect T B\n",
       "t.mrt:7:11: connect peer: no DUT QP named 'B'"},
      {"dut qp A = create_qp(type=RC)\ntester qp T = create_qp(colour=1)\n",
       "t.mrt:6:25: tester create_qp: unknown argument 'colour' (takes type, mtu"},
      {"dut qp A = create_qp(type=RC)\ntester qp T = create_qp(mr_lne=4096)\n",
       "unknown argument 'mr_lne' (did you mean 'mr_len'?)"},
      {"dut qp A = create_qp(type=RC)\ntester qp T = create_qp()\nconnect T A\n"
       "tester post_send T opcode=RDMA_WRIT len=8\n",
       "t.mrt:8:27: tester post_send opcode: unknown value 'RDMA_WRIT' (did you mean "
       "'RDMA_WRITE'?)"},
      {"impair loss=2\n", "t.mrt:5:13: impair loss: expected a percentage"},
  };
  for (const auto& [body, text] : cases) {
    auto parsed = script::parse_script(std::string(kHeader) + body, "t.mrt");
    ASSERT_EQ(parsed.diagnostics.size(), 1U) << body;
    EXPECT_NE(parsed.diagnostics[0].to_string().find(text), std::string::npos)
        << body << " -> " << parsed.diagnostics[0].to_string();
  }
}

TEST(DrivenExchange, ScriptMistakesOnlyARunSeesAreHarnessErrorsNamingTheLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"dut qp A = create_qp(type=RC)\ntester qp T = create_qp()\ntester post_send T len=8\n",
       "is not connected yet"},
      {"impair dir=dut\n", "no rate given"},
      {"impair loss=60% reorder=50%\n", "more than 100%"},
  };
  for (const auto& [body, text] : cases) {
    auto r = run(body);
    EXPECT_EQ(r.verdict, report::Verdict::kError) << body;
    EXPECT_NE(r.reason.find(text), std::string::npos) << body << " -> " << r.reason;
    EXPECT_NE(r.reason.find("t.mrt:"), std::string::npos) << r.reason;
  }
}

// The capture names the direction of each frame, and the frame a `>` line failed on carries
// the failure text after the script line.
TEST(DrivenExchange, TheFailingFramesCommentCarriesTheFailure) {
  const std::string capture = ::testing::TempDir() + "/failing-line.pcapng";
  auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=1 len=64
0   < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b"hello")
+0  > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=7)
)",
               {}, 5, {}, capture);
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  auto reader = io::CaptureReader::open(capture);
  ASSERT_TRUE(reader) << reader.error().to_string();
  std::vector<std::pair<uint32_t, std::string>> frames;  // interface, first comment
  for (int i = 0; i < 100; ++i) {
    auto f = reader->next();
    ASSERT_TRUE(f);
    if (!*f) break;
    frames.emplace_back((*f)->interface, std::string((*f)->comment));
  }
  ASSERT_EQ(frames.size(), 2U);
  EXPECT_EQ(frames[0], (std::pair<uint32_t, std::string>{0, "t.mrt:7 inject"}));
  EXPECT_EQ(frames[1], (std::pair<uint32_t, std::string>{1, "t.mrt:8 expect"}));
  std::ifstream in(capture, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  EXPECT_NE(bytes.find("tester->dut"), std::string::npos);
  EXPECT_NE(bytes.find("dut->tester"), std::string::npos);
  EXPECT_NE(bytes.find("line 8: AETH.msn expected"), std::string::npos) << failures(r);
}

}  // namespace
}  // namespace mr::engine
