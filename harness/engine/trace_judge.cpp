#include "harness/engine/trace_judge.h"

namespace mr::engine {
namespace {

// A test that drives a broken DUT may break one rule at every packet: the first ones say it.
constexpr size_t kMaxViolations = 32;

}  // namespace

TraceJudge::TraceJudge(DutPort& inner)
    : inner_(inner), analyzer_([this](const analyze::Violation& v) {
        if (!v.by_tester && violations_.size() < kMaxViolations) violations_.push_back(v);
      }) {}

uint64_t TraceJudge::inject(std::span<const uint8_t> frame) {
  const uint64_t t = inner_.inject(frame);
  analyzer_.add_bytes(frame, t, true);
  return t;
}

std::optional<DutFrame> TraceJudge::receive(uint64_t deadline_ns) {
  auto f = inner_.receive(deadline_ns);
  if (f) analyzer_.add_bytes(f->bytes, f->t_ns, false);
  return f;
}

Expected<void, std::string> TraceJudge::reset() {
  violations_.clear();
  return inner_.reset();
}

}  // namespace mr::engine
