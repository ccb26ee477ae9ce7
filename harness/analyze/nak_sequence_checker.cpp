// MR-PS-04: a PSN sequence error NAK carries the responder's ePSN, a PSN the requester
// has sent. MR-PS-05: after such a NAK with PSN e, no second one until a request with
// PSN e arrived. A second NAK with a later PSN is not judged: the responder's ePSN moved,
// which it does only on receiving a request with PSN e (MR-PS-03), so e did arrive; that
// the capture shows no resent e between the NAKs is explained by the capture point, which
// saw the original e before the first NAK and cannot see it reordered or delayed behind
// the tap (docs/analyze.md). A second NAK at e or behind it is judged. A NAK whose PSN is
// no ePSN (MR-PS-04) opens nothing, so the NAKs after it are not judged against it.
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

class NakSequenceChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.p.aeth || !c.is_response() || c.p.aeth->syndrome.value() != wire::kNakPsnSequenceError)
      return;
    const uint32_t psn = c.psn();
    const ResponderState& s = c.dir.resp;
    if (s.nak_open && wire::psn_diff(psn, s.nak_psn) <= 0) {
      report_lazily(sink, c, "MR-PS-05", [psn, &s] {
        return "second PSN sequence NAK (PSN " + hex(psn) + ") before a request with PSN " +
               hex(s.nak_psn) + " arrived";
      });
    }
    if (!c.dir.peer || !c.dir.peer->req.started) return;
    const RequesterState& r = c.dir.peer->req;
    if (wire::psn_diff(psn, sent_limit(r)) >= 0) {
      report_lazily(sink, c, "MR-PS-04", [psn, &r] {
        return "PSN sequence NAK carries PSN " + hex(psn) +
               ", which the requester has not sent yet (next new PSN " + hex(sent_limit(r)) +
               "), so it is no ePSN";
      });
    } else if (s.acked && wire::psn_diff(psn, s.last_ack_psn) <= 0) {
      report_lazily(sink, c, "MR-PS-04", [psn, &s] {
        return "PSN sequence NAK carries PSN " + hex(psn) + ", at or before PSN " +
               hex(s.last_ack_psn) + " already acknowledged, so it is no ePSN";
      });
    }
  }
};

}  // namespace

std::unique_ptr<Checker> make_nak_sequence_checker() {
  return std::make_unique<NakSequenceChecker>();
}

}  // namespace mr::analyze
