// A `<` line with a window (`+0~0.00002 <`) must go out by the window's end: a tester that
// sends later gave the DUT another stimulus than the script's, so what follows cannot fail
// the DUT; it is inconclusive. A slow link stands in for a loaded real-clock bed.
#include <gtest/gtest.h>

#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/test_runner.h"
#include "harness/script/parser.h"

namespace mr::engine {
namespace {

// The embedded reference, each injection handed to the link `delay_ns` late.
class SlowInjectPort final : public DutPort {
 public:
  SlowInjectPort(DutPort& inner, uint64_t delay_ns) : inner_(inner), delay_ns_(delay_ns) {}

  ControlReply control(nlohmann::json request) override {
    return inner_.control(std::move(request));
  }
  uint64_t inject(std::span<const uint8_t> frame) override {
    inner_.wait_until(inner_.now_ns() + delay_ns_);
    return inner_.inject(frame);
  }
  std::optional<DutFrame> receive(uint64_t deadline_ns) override {
    return inner_.receive(deadline_ns);
  }
  void wait_until(uint64_t t_ns) override { inner_.wait_until(t_ns); }
  uint64_t now_ns() override { return inner_.now_ns(); }
  Expected<void, std::string> reset() override { return inner_.reset(); }

 private:
  DutPort& inner_;
  uint64_t delay_ns_;
};

// Two SENDs, then an ACK the reference never sends (syndrome RNR): a mismatch at line 9.
report::TestResult run_slow(const std::string& second_time, uint64_t delay_ns) {
  const std::string text =
      "# tp: T-1\n# clause: MR-AK-01\n# purpose: p\n# pics: rc.send\n"
      "dut qp A = create_qp(type=RC)\n"
      "dut post_recv A count=2 len=64\n"
      "0 < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=b\"one\")\n" +
      second_time +
      " < BTH(opcode=RC_SEND_ONLY, psn=P+1, ackreq=1)/Raw(load=b\"two\")\n"
      "* > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=RNR_NAK)\n";
  auto parsed = script::parse_script(text, "t.mrt");
  EXPECT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string();
  auto px = Pixit::load("testcases/pixit/default.pixit.json");
  EXPECT_TRUE(px) << px.error();
  px->tolerance_abs_ms = 1;  // a 100 us late injection is within the PIXIT's tolerance
  dut::EmbeddedReferencePort reference(*px, {.seed = 5, .mutants = {}});
  SlowInjectPort slow(reference, delay_ns);
  TestOptions options;
  options.seed = 5;
  options.pics = {{"rc.send", true}};
  return run_test(parsed.script, slow, *px, options);
}

TEST(SendWindow, ALineSentAfterItsWindowMakesAMismatchInconclusive) {
  const auto r = run_slow("+0~0.00002", 100'000);
  EXPECT_EQ(r.verdict, report::Verdict::kInconc);
  EXPECT_NE(r.reason.find("the tester sent line 8 80 us after the end of its window"),
            std::string::npos)
      << r.reason;
}

TEST(SendWindow, ALineSentWithinItsWindowLeavesAMismatchAFailure) {
  EXPECT_EQ(run_slow("+0~0.0002", 100'000).verdict, report::Verdict::kFail);
}

TEST(SendWindow, ALineWithoutAWindowIsHeldOnlyToThePixitTolerance) {
  EXPECT_EQ(run_slow("+0", 100'000).verdict, report::Verdict::kFail);
  EXPECT_EQ(run_slow("+0", 2'000'000).verdict, report::Verdict::kInconc);  // beyond 1 ms
}

}  // namespace
}  // namespace mr::engine
