// MR-PS-01, MR-PS-10: new request packets carry consecutive PSNs; a retransmission
// restarts at an earlier PSN and then ascends one by one. MR-PS-02: a READ of length L
// consumes max(1, ceil(L / PMTU)) PSNs (when the PMTU is not yet known, the next request
// must be consistent with one of the five PMTUs). A READ reissued from inside an earlier
// READ's range (MR-RT-05: VA advanced and length reduced by whole PMTUs) is a
// retransmission, not a new request, so it is no miscount.
#include <optional>

#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "reference/wire/psn.h"

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
    if (c.is(wire::kRead) && reissued_read(c)) return;
    const uint32_t psn = c.psn();
    const std::optional<uint32_t> expected = expected_next_psn(c.dir);
    if (!expected) {
      const int32_t count = wire::psn_diff(psn, r.read_psn);
      if (count > 0 && !some_pmtu_gives(r.read_dlen, count)) {
        report_lazily(sink, c, "MR-PS-02", [psn, &r, count] {
          return "request PSN " + hex(psn) + " follows a " + std::to_string(r.read_dlen) +
                 "-byte READ at PSN " + hex(r.read_psn) + " by " + std::to_string(count) +
                 " PSNs, which no PMTU gives";
        });
      }
      return;
    }
    const int32_t ahead = wire::psn_diff(psn, *expected);
    const int32_t after_read = wire::psn_diff(psn, r.read_psn);
    // Past the newest READ's first PSN but not where its count ends: a miscount (a READ
    // reissued for its tail returned above).
    if (r.last_new_read && ahead != 0 && after_read > 0 && !r.in_retx) {
      report_lazily(sink, c, "MR-PS-02", [&c, psn, after_read, want = *expected] {
        const RequesterState& r = c.dir.req;
        return "request PSN " + hex(psn) + " follows a " + std::to_string(r.read_dlen) +
               "-byte READ at PSN " + hex(r.read_psn) + " by " + std::to_string(after_read) +
               " PSNs, not the " + std::to_string(wire::psn_diff(want, r.read_psn)) + " the PMTU " +
               std::to_string(c.dir.pmtu()) + " gives";
      });
    } else if (ahead > 0) {
      report_lazily(sink, c, "MR-PS-01", [psn, ahead, want = *expected] {
        return "new request PSN " + hex(psn) + " skips " + std::to_string(ahead) +
               " PSN(s) after the expected " + hex(want);
      });
    } else if (ahead < 0 && r.in_retx && wire::psn_diff(psn, r.retx_next) > 0) {
      report_lazily(sink, c, "MR-PS-10", [psn, &r] {
        return "retransmitted PSN " + hex(psn) + " skips ahead of " + hex(r.retx_next) +
               " instead of resending in order";
      });
    }
  }
};

}  // namespace

std::unique_ptr<Checker> make_psn_order_checker() { return std::make_unique<PsnOrderChecker>(); }

}  // namespace mr::analyze
