#include "harness/engine/trace_judge.h"

#include "harness/engine/test_context.h"

namespace mr::engine {
namespace {

// A test that drives a broken DUT may break one rule at every packet: the first ones say it.
constexpr size_t kMaxViolations = 32;

}  // namespace

TraceJudge::TraceJudge(DutPort& inner, uint64_t timestamp_slack_ns)
    : ForwardingPort(inner),
      analyzer_(
          [this](const analyze::Violation& v) {
            if (!v.by_tester && violations_.size() < kMaxViolations) violations_.push_back(v);
          },
          analyze::AnalyzerOptions{.timestamp_slack_ns = timestamp_slack_ns}) {}

uint64_t TraceJudge::inject(std::span<const uint8_t> frame) {
  const uint64_t t = inner().inject(frame);
  analyzer_.add_bytes(frame, t, true);
  return t;
}

std::optional<DutFrame> TraceJudge::receive(uint64_t deadline_ns) {
  auto f = inner().receive(deadline_ns);
  if (f) analyzer_.add_bytes(f->bytes, f->t_ns, false);
  return f;
}

Expected<void, std::string> TraceJudge::reset() {
  violations_.clear();
  return inner().reset();
}

void judge_trace(TestContext& ctx, const TraceJudge& judge,
                 const std::map<std::string, std::string>& levels) {
  script::Position last{0, 1};
  if (!ctx.script.statements.empty()) {
    std::visit([&](const auto& s) { last = s.pos; }, ctx.script.statements.back());
  }
  for (const auto& v : judge.violations()) {
    const uint64_t at = v.time_ns > ctx.t0_ns ? v.time_ns - ctx.t0_ns : 0;
    const std::string clause(v.clause);
    const std::string where = "the DUT's packet at +" + std::to_string(at / 1000) + "." +
                              std::to_string(at % 1000 / 100) + " us (" + v.flow + ")";
    auto level = levels.find(clause);
    if (level != levels.end() && (level->second == "SHOULD" || level->second == "MAY")) {
      report::PacketRecord note;
      note.t_ns = at;
      note.from_tester = false;
      note.summary = "advisory (" + level->second + " " + clause + "): " + v.text;
      note.script_ref = "trace checker: " + where;
      ctx.result.packets.push_back(std::move(note));
      continue;
    }
    std::string message = "trace checker: ";
    message += where;
    message += " breaks ";
    message += clause;
    message += ": ";
    message += v.text;
    ctx.fail(last, "trace " + clause, "no violation", v.text, std::move(message));
    // Against the clause the checker found broken, which the test need not cite.
    ctx.result.failures.back().clauses = {clause};
  }
}

}  // namespace mr::engine
