// MR-AK-11: a duplicate SEND or WRITE (its PSN already acknowledged) is answered with an ACK
// whose PSN is ePSN - 1, never one that goes back to the duplicate's own PSN.
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

class DuplicateAckChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    const ResponderState& s = c.dir.resp;
    if (!c.is(wire::kAck) || !c.p.aeth || !s.duplicate_pending) return;
    if (wire::syndrome_type(c.p.aeth->syndrome.value()) != wire::SyndromeType::kAck) return;
    if (wire::psn_diff(c.psn(), s.last_ack_psn) >= 0) return;
    report_lazily(sink, c, "MR-AK-11", [&c, &s] {
      return "ACK for a duplicate request carries PSN " + hex(c.psn()) +
             ", behind ePSN - 1 (at least " + hex(s.last_ack_psn) + ")";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_duplicate_ack_checker() {
  return std::make_unique<DuplicateAckChecker>();
}

}  // namespace mr::analyze
