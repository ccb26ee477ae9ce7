// MR-PS-11: a requester never has more than 2^23 - 1 request PSNs unacknowledged, so that
// every PSN it sends is unambiguously ahead of or behind the responder's ePSN.
//
// Judged at each new request in sequence: the PSNs from the oldest one not yet acknowledged (one
// after the newest ACK PSN of the responder, or the first request of the capture) up to the PSN
// after this request, a READ counting all the PSNs its responses take (at the connection's
// PMTU; one while that is unknown, so that no count is guessed too high). Only the request
// that crosses the bound is reported: the count modulo 2^24 must have grown past it from
// within it, so a stale or misread ACK cannot make every later request a violation.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

constexpr uint32_t kMaxUnackedPsns = (1U << 23) - 1;

class UnackedWindowChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is_request()) return;
    const RequesterState& r = c.dir.req;
    const uint32_t psn = c.psn();
    const Direction* responder = c.dir.peer;
    uint32_t oldest = psn;
    if (responder && responder->resp.acked) {
      oldest = wire::psn_add(responder->resp.last_ack_psn, 1);
    } else if (r.started) {
      oldest = r.first_psn;
    }
    const uint32_t before = (psn - oldest) & wire::kPsnMask;
    // Decided first, for almost every request: a one-PSN request crosses the bound only from
    // exactly kMaxUnackedPsns, and none crosses it from beyond.
    const bool read = c.is(wire::kRead) && c.p.reth;
    if (before > kMaxUnackedPsns || (!read && before < kMaxUnackedPsns)) return;
    if (r.started) {
      const std::optional<uint32_t> next = expected_next_psn(c.dir);
      // Only a request in sequence: a retransmission adds nothing, a skip is MR-PS-01's.
      if (!next || psn != *next) return;
    }
    uint32_t count = 1;
    if (read) {
      const uint32_t pmtu = c.dir.pmtu();
      count = pmtu ? read_psns(c.p.reth->dlen.value(), pmtu) : 1;
    }
    const uint32_t after = (wire::psn_add(psn, count) - oldest) & wire::kPsnMask;
    if (after <= kMaxUnackedPsns || after <= before) return;
    report_lazily(sink, c, "MR-PS-11", [&c, after, oldest] {
      return wire::opcode_name(c.p.bth.opcode.value()) + " PSN " + hex(c.psn()) + " makes " +
             std::to_string(after) + " request PSNs unacknowledged (from " + hex(oldest) +
             "), more than 2^23 - 1 = " + std::to_string(kMaxUnackedPsns);
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_unacked_window_checker() {
  return std::make_unique<UnackedWindowChecker>();
}

}  // namespace mr::analyze
