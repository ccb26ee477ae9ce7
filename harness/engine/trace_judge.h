// File: trace_judge.h
//
// The passive checkers of harness/analyze on every test's exchange (DESIGN.md, "Roles on
// the wire": expectations plus the trace checkers judge the whole exchange). A DutPort at
// the DUT's side of the fault layer: it sees each tester frame as the DUT received it (after
// drops, corruption, reordering) and each DUT frame as the DUT sent it (before them), which
// is the view the clauses are written from. Violations by the tester's own packets (crafted
// to be wrong on purpose) are not the DUT's and are not kept.
//
//   TraceJudge judge(port);            // engine -> faults -> judge -> port
//   ... run the test through it ...
//   for (const auto& v : judge.violations()) fail(v);
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/analyze/analyzer.h"
#include "harness/engine/dut_port.h"

namespace mr::engine {

class TraceJudge final : public ForwardingPort {
 public:
  // `timestamp_slack_ns`: how much closer the port's timestamps may put two DUT frames than
  // the DUT sent them (the PIXIT's absolute tolerance).
  TraceJudge(DutPort& inner, uint64_t timestamp_slack_ns);

  const std::vector<analyze::Violation>& violations() const { return violations_; }
  uint64_t frames() const { return analyzer_.counts().frames; }

  uint64_t inject(std::span<const uint8_t> frame) override;
  std::optional<DutFrame> receive(uint64_t deadline_ns) override;
  Expected<void, std::string> reset() override;

 private:
  std::vector<analyze::Violation> violations_;
  analyze::Analyzer analyzer_;
};

struct TestContext;

// A trace checker's violation of a MUST clause is the DUT's failure like any other: its
// clause, the packet (by its time in the exchange; the ladder and the pcapng show it) and
// what is wrong, cited at the script's last line. One of a SHOULD or MAY clause (by
// `levels`, from the clause catalog) is advisory: in the ladder, not the verdict.
void judge_trace(TestContext& ctx, const TraceJudge& judge,
                 const std::map<std::string, std::string>& levels);

}  // namespace mr::engine
