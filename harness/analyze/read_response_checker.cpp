// MR-RD-01: READ responses come as ONLY, or FIRST, MIDDLE..., LAST, ending at the READ's
// last PSN. MR-RD-02: they carry the READ request's PSNs, consecutively. MR-RD-03: FIRST,
// LAST and ONLY carry an ACK-type AETH (MIDDLE has none: the decoder reads no AETH there).
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "harness/analyze/psn.h"

namespace mr::analyze {
namespace {

class ReadResponseChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is_response() || !c.is(wire::kRead)) return;
    const ResponderState& s = c.dir.resp;
    const uint32_t psn = c.psn();
    const std::string what = wire::opcode_name(c.p.bth.opcode.value());
    if (c.p.aeth && ack_type(c.p.aeth->syndrome.value()) != AckType::kAck) {
      sink.report(c, "MR-RD-03",
                  what + " carries syndrome " + hex(c.p.aeth->syndrome.value(), 2) +
                      ", not an ACK syndrome");
    }
    if (c.is(wire::kStart)) {
      check_start(c, sink, what);
      return;
    }
    if (!s.read_open) {
      sink.report(c, "MR-RD-01", what + " PSN " + hex(psn) + " without a READ_RESPONSE_FIRST");
      return;
    }
    if (psn != s.read_next_psn) {
      sink.report(c, "MR-RD-02",
                  what + " PSN " + hex(psn) + " does not follow the previous response PSN " +
                      hex(psn_add(s.read_next_psn, -1)));
      return;
    }
    if (!s.read_last_known) return;
    if (c.is(wire::kMiddle) && psn == s.read_last_psn) {
      sink.report(c, "MR-RD-01",
                  "READ_RESPONSE_MIDDLE at the READ's last PSN " + hex(psn) + " (LAST expected)");
    } else if (c.is(wire::kLast) && psn != s.read_last_psn) {
      sink.report(c, "MR-RD-01",
                  "READ_RESPONSE_LAST at PSN " + hex(psn) + ", but the READ ends at PSN " +
                      hex(s.read_last_psn));
    }
  }

 private:
  static void check_start(const PacketContext& c, ViolationSink& sink, const std::string& what) {
    const ResponderState& s = c.dir.resp;
    const uint32_t psn = c.psn();
    if (s.read_open) {
      sink.report(c, "MR-RD-01",
                  what + " PSN " + hex(psn) + " while the response ending the previous READ " +
                      "is still missing");
    }
    if (!c.dir.peer || !c.dir.peer->req.started) return;
    const uint32_t pmtu = c.dir.pmtu();
    const PendingRequest* rq = find_read(c.dir.peer->req, psn, pmtu);
    if (!rq) {
      sink.report(c, "MR-RD-02", what + " PSN " + hex(psn) + " is no PSN of a READ request seen");
      return;
    }
    if (!pmtu) return;
    const uint32_t count = read_psns(rq->dlen, pmtu);
    const uint32_t remaining = count - static_cast<uint32_t>(psn_diff(psn, rq->psn));
    if (c.is(wire::kOnly) && remaining > 1) {
      sink.report(c, "MR-RD-01",
                  "READ_RESPONSE_ONLY for a " + std::to_string(rq->dlen) + "-byte READ, which " +
                      "at PMTU " + std::to_string(pmtu) + " needs " + std::to_string(remaining) +
                      " packets");
    } else if (c.is(wire::kFirst) && remaining == 1) {
      sink.report(c, "MR-RD-01",
                  "READ_RESPONSE_FIRST for a " + std::to_string(rq->dlen) +
                      "-byte READ that fits one packet at PMTU " + std::to_string(pmtu));
    }
  }
};

}  // namespace

std::unique_ptr<Checker> make_read_response_checker() {
  return std::make_unique<ReadResponseChecker>();
}

}  // namespace mr::analyze
