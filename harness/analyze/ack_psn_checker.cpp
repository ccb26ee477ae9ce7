// MR-AK-02: an ACK's PSN is that of the newest request packet it acknowledges, so it is a
// PSN the requester has sent.
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

class AckPsnChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is(wire::kAck) || !c.p.aeth) return;
    if (wire::syndrome_type(c.p.aeth->syndrome.value()) != wire::SyndromeType::kAck) return;
    if (!c.dir.peer || !c.dir.peer->req.started) return;
    const RequesterState& r = c.dir.peer->req;
    const uint32_t psn = c.psn();
    if (wire::psn_diff(psn, sent_limit(r)) < 0) return;
    report_lazily(sink, c, "MR-AK-02", [psn, &r] {
      return "ACK PSN " + hex(psn) + " acknowledges a request the requester never sent " +
             "(newest request PSN " + hex(wire::psn_add(sent_limit(r), -1)) + ")";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_ack_psn_checker() { return std::make_unique<AckPsnChecker>(); }

}  // namespace mr::analyze
