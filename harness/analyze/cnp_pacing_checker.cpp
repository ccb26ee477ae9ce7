// MR-CC-03: a notification point sends at most one CNP per QP within T_CNP_MIN_INTERVAL
// (50 us by default, docs/spec/clauses.json parameters).
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

constexpr uint64_t kCnpMinIntervalNs = 50'000;

class CnpPacingChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is(wire::kCnp) || !c.dir.resp.cnp_seen) return;
    const uint64_t gap = c.time_ns - c.dir.resp.last_cnp_ns;
    if (c.time_ns < c.dir.resp.last_cnp_ns || gap + c.timestamp_slack_ns >= kCnpMinIntervalNs)
      return;
    report_lazily(sink, c, "MR-CC-03", [&c, gap] {
      return "second CNP to QP " + hex(c.p.bth.dqpn.value()) + " only " +
             std::to_string(gap / 1000) + "." + std::to_string(gap % 1000 / 100) +
             " us after the previous one (at most one per 50 us)";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_cnp_pacing_checker() { return std::make_unique<CnpPacingChecker>(); }

}  // namespace mr::analyze
