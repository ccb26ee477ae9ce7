// MR-AT-06: an ATOMIC_ACKNOWLEDGE carries the ATOMIC request's PSN and an ACK syndrome.
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {
namespace {

class AtomicAckChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (c.p.bth.opcode.value() != wire::kOpRcAtomicAcknowledge || !c.p.aeth) return;
    if (wire::syndrome_type(c.p.aeth->syndrome.value()) != wire::SyndromeType::kAck) {
      report_lazily(sink, c, "MR-AT-06", [&c] {
        return "ATOMIC_ACKNOWLEDGE carries syndrome " + hex(c.p.aeth->syndrome.value(), 2) +
               ", not an ACK syndrome";
      });
    }
    if (!c.dir.peer || !c.dir.peer->req.started) return;
    if (find_atomic(c.dir.peer->req, c.psn())) return;
    report_lazily(sink, c, "MR-AT-06", [&c] {
      return "ATOMIC_ACKNOWLEDGE PSN " + hex(c.psn()) + " is the PSN of no ATOMIC request seen";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_atomic_ack_checker() { return std::make_unique<AtomicAckChecker>(); }

}  // namespace mr::analyze
