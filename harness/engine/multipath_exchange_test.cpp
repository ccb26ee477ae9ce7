// Multipath exchanges against the embedded reference: a script gives the DUT's QP its EV
// set, keeps the EVs the DUT chose (`let e1 = last.ev`) and judges them (`check`), and reads
// and sets the entries' states through the control protocol; every Ext packet's entropy is
// judged implicitly against the QP's set (entropy_check.h).
#include <gtest/gtest.h>

#include <utility>

#include "harness/engine/testing/reference_run.h"

namespace mr::engine {
namespace {

constexpr const char* kHeader =
    "# tp: T-1\n# clause: MR-MU-01\n# purpose: p\n# pics: ext.multipath\n";

report::TestResult run(const std::string& body, std::vector<std::string> mutants = {}) {
  return testing::run_on_reference(
      body, {.header = kHeader, .pics = {{"ext.multipath", true}}, .mutants = std::move(mutants)});
}

std::string failures(const report::TestResult& r) { return testing::failures_text(r); }

// A two-packet WRITE over a set of two, the EVs kept and required to differ.
std::string sprayed_write(const std::string& options) {
  return "dut qp A = create_qp(type=RC, mtu=1024, ext=1, " + options +
         R"(ev_set=[0xc101, 0xc102])
dut post_send A opcode=RDMA_WRITE len=2048 offset=0 remote_addr=0x1000 rkey=0x1234 wr_id=1
*       > BTH(opcode=RC_RDMA_WRITE_FIRST, psn=Q)/MXH(retx=0)
let e1 = last.ev
+0      > BTH(opcode=RC_RDMA_WRITE_LAST, psn=Q+1)/MXH(retx=0)
check distinct [e1, last.ev]
+0.0001 < BTH(opcode=RC_ACKNOWLEDGE, psn=Q+1)/AETH(syndrome=ACK, msn=1)/SACKETH(ev_echo=last.ev, sacked=[])
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=1
)";
}

TEST(MultipathExchange, AWriteIsSprayedOverTheGivenSet) {
  const auto r = run(sprayed_write("multipath=1, "));
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
}

TEST(MultipathExchange, CheckDistinctFailsAtTheValueThatRepeatsWithBothShown) {
  const auto r = run(sprayed_write(""));  // no MULTIPATH: both packets on the first entry
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  ASSERT_EQ(r.failures.size(), 1U) << failures(r);
  EXPECT_EQ(r.failures[0].line, 10);
  EXPECT_EQ(r.failures[0].field, "check");
  EXPECT_EQ(r.failures[0].actual, "e1 = 0xc101 (49409) and last.ev = 0xc101 (49409)");
}

TEST(MultipathExchange, CheckAtLeastCountsTheDistinctValues) {
  std::string body = sprayed_write("");  // both packets on the first entry
  body.replace(body.find("check distinct [e1, last.ev]"), 28,
               "check at_least 1 distinct [e1, last.ev]\ncheck at_least 2 distinct [e1, last.ev]");
  const auto r = run(body);
  ASSERT_EQ(r.failures.size(), 1U) << failures(r);
  EXPECT_EQ(r.failures[0].line, 11);
  EXPECT_EQ(r.failures[0].expected, "at least 2 distinct values");
  EXPECT_EQ(r.failures[0].actual, "1: 0xc101 (49409)");
}

TEST(MultipathExchange, APortThatIsNotTheEvFailsTheTraceChecker) {
  // The mutant keeps the UDP port at the first entry's EV while the MXH names another.
  const auto r = run(sprayed_write("multipath=1, "), {"ext-sport-not-ev"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  ASSERT_EQ(r.failures.size(), 1U) << failures(r);
  EXPECT_EQ(r.failures[0].field, "trace MR-MU-02");
}

// The mutant numbers its default set from 16 x QPN + 1: the sixteenth EV is outside section
// 20.1's set, found on a packet the `within` line passes over.
TEST(MultipathExchange, AnEvOutsideTheDefaultSetFailsImplicitlyNamingTheSet) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1, multipath=1)
dut post_send A opcode=RDMA_WRITE len=16384 offset=0 remote_addr=0x1000 rkey=0x1234 wr_id=1
*       > within 16 BTH(opcode=RC_RDMA_WRITE_LAST)
)",
                     {"ext-default-set-skewed"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  ASSERT_GE(r.failures.size(), 1U) << failures(r);
  EXPECT_EQ(r.failures[0].field, "MXH.ev");
  EXPECT_EQ(r.failures[0].expected.rfind("one of the QP's EV set [0x", 0), 0U)
      << r.failures[0].expected;
  EXPECT_NE(r.failures[0].message.find("MR-MU-11"), std::string::npos) << r.failures[0].message;
}

TEST(MultipathExchange, EvStatesAreSetAndReadThroughTheControlProtocol) {
  const auto r =
      run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1, multipath=1, ev_set=[0xc101, 0xc102])
dut set_ev_state A ev=0xc102 state=DENIED
dut expect_ev_state A ev=0xc102 state=DENIED
dut expect_ev_state A ev=0xc101 state=GOOD
dut expect_ev_state A ev=0xc103 state=GOOD
)");
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  ASSERT_EQ(r.failures.size(), 1U) << failures(r);
  EXPECT_EQ(r.failures[0].line, 9);
  EXPECT_EQ(r.failures[0].field, "ev_set");
}

TEST(MultipathExchange, AnEvSetWithoutExtensionModeOrPlanesWithoutEvsIsAnError) {
  auto r = run("dut qp A = create_qp(type=RC, mtu=1024, ev_set=[0xc101])\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  EXPECT_NE(r.reason.find("an EV set is for extension mode"), std::string::npos) << r.reason;
  r = run("dut qp A = create_qp(type=RC, mtu=1024, ext=1, ev_set=[0xc101], ev_planes=[0, 0])\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  EXPECT_NE(r.reason.find("ev_planes= has 2 planes for 1 EVs"), std::string::npos) << r.reason;
}

TEST(MultipathExchange, ALetOfAnUnknownNameIsAHarnessError) {
  const auto r = run("let e1 = nothing_here\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError);
  EXPECT_NE(r.reason.find("let: unknown symbol 'nothing_here'"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace mr::engine
