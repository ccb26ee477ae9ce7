// MR-AK-03: the MSN of a responder's AETHs counts completed inbound messages: it never
// goes backwards (modulo 2^24). An MSN that went back is reported at its AETH and is not
// the count the next one is judged against (flow_tracker.cpp), so an MSN after it that goes
// back from the right count is still reported.
#include "harness/analyze/checkers.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

class MsnChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.p.aeth || !c.is_response() || !c.dir.resp.msn_seen) return;
    const uint32_t msn = c.p.aeth->msn.value();
    if (wire::psn_diff(msn, c.dir.resp.msn) >= 0) return;
    report_lazily(sink, c, "MR-AK-03", [&c, msn] {
      return "MSN went back from " + std::to_string(c.dir.resp.msn) + " to " + std::to_string(msn);
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_msn_checker() { return std::make_unique<MsnChecker>(); }

}  // namespace mr::analyze
