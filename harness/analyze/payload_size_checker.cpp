// Segmentation lengths (section 11; MR-RD-01 for READ responses, and the requester side of
// the rules MR-MP-07 (WRITE) and MR-MP-08 (SEND) make responders enforce): FIRST and
// MIDDLE carry exactly PMTU bytes, LAST 1 to PMTU bytes, ONLY at most PMTU bytes. The PMTU
// is inferred from the FIRST/MIDDLE sizes the connection has shown (infer_pmtu): a packet of
// another size is reported and does not move it, so the right packets after it are not
// reported too; a second one of that size in a row is taken as the PMTU, not reported.
// A WRITE's packets also carry exactly its RETH's DMA length (MR-MP-07): an ONLY or LAST that
// carries more or less, a FIRST or MIDDLE that leaves nothing for the LAST.
#include <optional>

#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"

namespace mr::analyze {
namespace {

std::string what(const PacketContext& c) { return wire::opcode_name(c.p.bth.opcode.value()); }

// The size the sender's previous FIRST/MIDDLE carried when it broke the PMTU, or 0.
uint32_t own_candidate(const PacketContext& c) {
  return c.is_request() ? c.dir.req.pmtu_candidate : c.dir.resp.pmtu_candidate;
}

// The WRITE's bytes against its DMA length: what the RETH leaves for this packet, from the
// FIRST's length and the packets between (a MIDDLE carries what the FIRST did).
std::optional<uint64_t> write_bytes_left(const PacketContext& c) {
  if (c.p.reth && (c.is(wire::kFirst) || c.is(wire::kOnly))) return c.p.reth->dlen.value();
  const RequesterState& r = c.dir.req;
  if (!r.write_open || !(c.is(wire::kMiddle) || c.is(wire::kLast))) return std::nullopt;
  const int32_t packets_before = wire::psn_diff(c.psn(), r.write_first_psn);
  if (packets_before <= 0) return std::nullopt;  // not of this WRITE
  const uint64_t offset = uint64_t{r.write_segment} * static_cast<uint64_t>(packets_before);
  return offset < r.write_dlen ? r.write_dlen - offset : 0;
}

void check_write_length(const PacketContext& c, ViolationSink& sink) {
  const auto left = write_bytes_left(c);
  if (!left) return;
  const uint64_t len = c.p.payload.size();
  const bool ends = c.is(wire::kEnd);
  if (ends ? len == *left : len < *left) return;
  report_lazily(sink, c, "MR-MP-07", [&c, len, left = *left, ends] {
    return what(c) + " carries " + std::to_string(len) + " bytes, but the WRITE's DMA length " +
           (ends ? "leaves " + std::to_string(left) + " for it"
                 : "leaves " + std::to_string(left) + ", nothing for a LAST packet");
  });
}

class PayloadSizeChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (c.is(wire::kWrite) && c.is_request()) check_write_length(c, sink);
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
