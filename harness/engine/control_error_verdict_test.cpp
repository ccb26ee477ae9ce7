// The code of a DUT control error decides the verdict: ENOSPC (the DUT lacks a resource) makes
// the test inconclusive, any other code, or an error reply without a protocol code, is a
// harness error. The refusals are a remote agent's reply lines, read by DutControl as
// RemoteAgentPort reads them; every other request goes to the embedded reference.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "harness/dut/dut_control.h"
#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/dut/testing/canned_reply_transport.h"
#include "harness/engine/test_runner.h"
#include "harness/script/parser.h"

namespace mr::engine {
namespace {

// The embedded reference, except that the agent answers every `refused_op` with `reply`.
class RefusingPort final : public DutPort {
 public:
  RefusingPort(DutPort& inner, std::string refused_op, std::string reply)
      : inner_(inner),
        refused_op_(std::move(refused_op)),
        agent_(std::make_unique<dut::CannedReplyTransport>(std::move(reply)), 1'000) {}

  Expected<nlohmann::json, protocol::ControlError> control(nlohmann::json request) override {
    if (request.value("op", "") != refused_op_) return inner_.control(std::move(request));
    auto r = agent_.call(refused_op_);
    if (!r) return Unexpected(std::move(r).error());
    return nlohmann::json(*r);
  }
  uint64_t inject(std::span<const uint8_t> frame) override { return inner_.inject(frame); }
  std::optional<DutFrame> receive(uint64_t deadline_ns) override {
    return inner_.receive(deadline_ns);
  }
  void wait_until(uint64_t t_ns) override { inner_.wait_until(t_ns); }
  uint64_t now_ns() override { return inner_.now_ns(); }
  Expected<void, std::string> reset() override { return inner_.reset(); }

 private:
  DutPort& inner_;
  std::string refused_op_;
  dut::DutControl agent_;
};

// Line 5 of the script (after the 4 header lines) creates a QP: create_pd, reg_mr, create_cq,
// create_qp, modify_qp. `body` replaces line 6 onwards.
report::TestResult run_refusing(const std::string& op, const std::string& reply,
                                const std::string& body = "dut post_recv A count=1 len=8\n") {
  const std::string text =
      "# tp: T-1\n# clause: MR-AK-01\n# purpose: p\n# pics: rc.send\n"
      "dut qp A = create_qp(type=RC)\n" +
      body;
  auto parsed = script::parse_script(text, "t.mrt");
  EXPECT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string();
  auto px = Pixit::load("testcases/pixit/default.pixit.json");
  EXPECT_TRUE(px) << px.error();
  dut::EmbeddedReferencePort reference(*px, {.seed = 5, .mutants = {}});
  RefusingPort port(reference, op, reply);
  TestOptions options;
  options.seed = 5;
  options.pics = {{"rc.send", true}};
  return run_test(parsed.script, port, *px, options);
}

TEST(ControlErrorVerdict, TheScriptPassesWhenNothingIsRefused) {
  EXPECT_EQ(run_refusing("no_such_op", "{}").verdict, report::Verdict::kPass);
}

TEST(ControlErrorVerdict, EnospcFromTheAgentMakesTheTestInconclusive) {
  const auto r = run_refusing(
      "reg_mr",
      R"({"ok": false, "error": {"code": "ENOSPC", "message": "cannot map 1048576 bytes", )"
      R"("field": "length"}})");
  EXPECT_EQ(r.verdict, report::Verdict::kInconc) << r.reason;
  EXPECT_EQ(r.reason,
            "t.mrt:5: the DUT lacks the resources this test needs: ENOSPC length: cannot map "
            "1048576 bytes");
}

TEST(ControlErrorVerdict, EinvalFromTheAgentIsAHarnessError) {
  const auto r = run_refusing(
      "post_recv", R"({"ok": false, "error": {"code": "EINVAL", "message": "must be at most 16", )"
                   R"("field": "wr.sg_list"}})");
  EXPECT_EQ(r.verdict, report::Verdict::kError) << r.reason;
  EXPECT_EQ(r.reason, "t.mrt:6: DUT control: EINVAL wr.sg_list: must be at most 16");
}

// An agent whose error carries no protocol code cannot be read as "out of resources", even
// when its words say so: a clear harness error that quotes what came.
TEST(ControlErrorVerdict, AnErrorWithoutAProtocolCodeIsAHarnessErrorQuotingIt) {
  auto r = run_refusing("reg_mr",
                        R"({"ok": false, "error": {"code": "ENOMEM", "message": "no memory"}})");
  EXPECT_EQ(r.verdict, report::Verdict::kError) << r.reason;
  EXPECT_EQ(r.reason, "t.mrt:5: DUT control: EPROTO: unknown error code 'ENOMEM': no memory");
  r = run_refusing("reg_mr", R"({"ok": false, "error": "ENOSPC"})");
  EXPECT_EQ(r.verdict, report::Verdict::kError) << r.reason;
  EXPECT_NE(r.reason.find("DUT control: EPROTO: malformed reply: {"), std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find(R"("error":"ENOSPC")"), std::string::npos) << r.reason;
}

// A reply the agent calls a success but whose members are missing or of the wrong type is
// the agent's fault: an error verdict naming the member and quoting the reply, not a
// thrown exception ending as a harness fault.
TEST(ControlErrorVerdict, AMalformedReplyIsAnErrorQuotingIt) {
  auto r = run_refusing("create_pd", R"({"ok": true, "pd": "one"})");
  EXPECT_EQ(r.verdict, report::Verdict::kError) << r.reason;
  EXPECT_EQ(r.reason,
            "t.mrt:5: DUT control: EPROTO: create_pd reply: pd: expected an unsigned integer or "
            R"(its decimal string; reply: {"pd":"one"})");
  r = run_refusing("poll_cq", R"({"ok": true, "completions": [{"wr_id": 1, "status": 7}]})",
                   "dut expect_completion A status=SUCCESS\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError) << r.reason;
  EXPECT_EQ(r.reason,
            "t.mrt:6: DUT control: EPROTO: poll_cq reply: completions[0].status: expected a "
            R"(string; reply: {"completions":[{"status":7,"wr_id":1}]})");
  r = run_refusing("counters", R"({"ok": true, "counters": {"sent_pkts": -1}})",
                   "0 > none\ndut expect_counter name=sent_pkts delta=0\n");
  EXPECT_EQ(r.verdict, report::Verdict::kError) << r.reason;
  EXPECT_NE(r.reason.find("counters reply: counters.sent_pkts: expected an unsigned integer"),
            std::string::npos)
      << r.reason;
}

// expect_counter's baseline is read where the exchange begins (the first packet line): the
// same classification as any other request there.
TEST(ControlErrorVerdict, EnospcForTheCounterBaselineMakesTheTestInconclusive) {
  const std::string body = "0 > none\ndut expect_counter name=dropped_state delta=0\n";
  EXPECT_EQ(run_refusing("no_such_op", "{}", body).verdict, report::Verdict::kPass);
  const auto r = run_refusing(
      "counters", R"({"ok": false, "error": {"code": "ENOSPC", "message": "no counter set"}})",
      body);
  EXPECT_EQ(r.verdict, report::Verdict::kInconc) << r.reason;
  EXPECT_EQ(r.reason,
            "t.mrt:6: the DUT lacks the resources this test needs: ENOSPC: no counter set");
  const auto e = run_refusing(
      "counters", R"({"ok": false, "error": {"code": "EINVAL", "message": "unknown op"}})", body);
  EXPECT_EQ(e.verdict, report::Verdict::kError) << e.reason;
  EXPECT_EQ(e.reason, "t.mrt:6: DUT control: EINVAL: unknown op");
}

}  // namespace
}  // namespace mr::engine
