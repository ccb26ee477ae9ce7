// MR-PS-01, MR-PS-10: new request packets carry consecutive PSNs; a retransmission
// restarts at an earlier PSN and then ascends one by one. MR-PS-02: a READ of length L
// consumes max(1, ceil(L / PMTU)) PSNs (when the PMTU is not yet known, the next request
// must be consistent with one of the five PMTUs).
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "harness/analyze/psn.h"

namespace mr::analyze {
namespace {

bool some_pmtu_gives(uint32_t dlen, uint32_t count) {
  for (uint32_t pmtu = 256; pmtu <= 4096; pmtu *= 2) {
    if (read_psns(dlen, pmtu) == count) return true;
  }
  return false;
}

class PsnOrderChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    const RequesterState& r = c.dir.req;
    if (!c.is_request() || !r.started) return;
    const uint32_t psn = c.psn();
    if (!r.next_psn_known) {
      const int32_t count = psn_diff(psn, r.read_psn);
      if (count > 0 && !some_pmtu_gives(r.read_dlen, count)) {
        sink.report(c, "MR-PS-02",
                    "request PSN " + hex(psn) + " follows a " + std::to_string(r.read_dlen) +
                        "-byte READ at PSN " + hex(r.read_psn) + " by " + std::to_string(count) +
                        " PSNs, which no PMTU gives");
      }
      return;
    }
    const int32_t ahead = psn_diff(psn, r.next_psn);
    const int32_t after_read = psn_diff(psn, r.read_psn);
    // A READ reissued from its first missing response PSN (MR-RT-05) is no skip.
    const bool responses_seen =
        c.dir.peer && psn_diff(c.dir.peer->resp.read_next_psn, r.read_psn) > 0;
    if (r.last_new_read && ahead != 0 && after_read > 0 && !r.in_retx &&
        (ahead > 0 || !responses_seen)) {
      sink.report(c, "MR-PS-02",
                  "request PSN " + hex(psn) + " follows a " + std::to_string(r.read_dlen) +
                      "-byte READ at PSN " + hex(r.read_psn) + " by " + std::to_string(after_read) +
                      " PSNs, not the " + std::to_string(psn_diff(r.next_psn, r.read_psn)) +
                      " the PMTU " + std::to_string(c.dir.pmtu()) + " gives");
    } else if (ahead > 0) {
      sink.report(c, "MR-PS-01",
                  "new request PSN " + hex(psn) + " skips " + std::to_string(ahead) +
                      " PSN(s) after the expected " + hex(r.next_psn));
    } else if (ahead < 0 && r.in_retx && psn_diff(psn, r.retx_next) > 0) {
      sink.report(c, "MR-PS-10",
                  "retransmitted PSN " + hex(psn) + " skips ahead of " + hex(r.retx_next) +
                      " instead of resending in order");
    }
  }
};

}  // namespace

std::unique_ptr<Checker> make_psn_order_checker() { return std::make_unique<PsnOrderChecker>(); }

}  // namespace mr::analyze
