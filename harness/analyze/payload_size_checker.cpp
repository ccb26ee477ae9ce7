// Segmentation lengths (section 11; MR-RD-01 for READ responses, and the requester side of
// the rules MR-MP-07 (WRITE) and MR-MP-08 (SEND) make responders enforce): FIRST and
// MIDDLE carry exactly PMTU bytes, LAST 1 to PMTU bytes, ONLY at most PMTU bytes. The PMTU
// is inferred from the FIRST/MIDDLE sizes the connection has shown (infer_pmtu): a packet of
// another size is reported and does not move it, so the right packets after it are not
// reported too; a second one of that size in a row is taken as the PMTU, not reported.
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"

namespace mr::analyze {
namespace {

std::string what(const PacketContext& c) { return wire::opcode_name(c.p.bth.opcode.value()); }

// The size the sender's previous FIRST/MIDDLE carried when it broke the PMTU, or 0.
uint32_t own_candidate(const PacketContext& c) {
  return c.is_request() ? c.dir.req.pmtu_candidate : c.dir.resp.pmtu_candidate;
}

class PayloadSizeChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is(wire::kPayload) || !(c.is(wire::kSend) || c.is(wire::kWrite) || c.is(wire::kRead)))
      return;
    const std::string_view clause =
        c.is(wire::kRead) ? "MR-RD-01" : (c.is(wire::kWrite) ? "MR-MP-07" : "MR-MP-08");
    const size_t len = c.p.payload.size();
    const uint32_t pmtu = c.dir.pmtu();
    if (c.is(wire::kFirst) || c.is(wire::kMiddle)) {
      if (!is_pmtu(len)) {
        report_lazily(sink, c, clause, [&c, len] {
          return what(c) + " carries " + std::to_string(len) +
                 " bytes, which is no PMTU (256, 512, 1024, 2048 or 4096)";
        });
      } else if (pmtu && len != pmtu && len != own_candidate(c)) {
        report_lazily(sink, c, clause, [&c, len, pmtu] {
          return what(c) + " carries " + std::to_string(len) + " bytes, but earlier FIRST and " +
                 "MIDDLE packets of the connection carried " + std::to_string(pmtu);
        });
      }
      return;
    }
    if (pmtu && len > pmtu) {
      report_lazily(sink, c, clause, [&c, len, pmtu] {
        return what(c) + " carries " + std::to_string(len) + " bytes, more than the PMTU " +
               std::to_string(pmtu) + " the connection's FIRST and MIDDLE packets show";
      });
    } else if (c.is(wire::kLast) && len == 0) {
      report_lazily(sink, c, clause, [&c] {
        return what(c) + " carries no payload; a LAST packet carries 1 to PMTU bytes";
      });
    }
  }
};

}  // namespace

std::unique_ptr<Checker> make_payload_size_checker() {
  return std::make_unique<PayloadSizeChecker>();
}

}  // namespace mr::analyze
