// MR-SA-18: an Ext receiver sends SACK offset 0 in every ACK and NAK while it has received no
// PSN after the SACK reference + 63, and never a bitmap base after its cumulative PSN +
// 128 x MPR. What the receiver got is the newest Ext request PSN of the opposite direction
// in the capture (taken where the DUT received it, as `run` takes it).
#include "harness/analyze/checkers.h"
#include "harness/analyze/ext_cumulative.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

constexpr int32_t kBitmapSpan = 64;  // PSNs a bitmap covers
constexpr uint32_t kMprUnit = 128;

class ExtSackOffsetChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (c.is_request()) {
      RequesterState& r = c.dir.req;
      if (!r.ext_top_seen || wire::psn_diff(c.psn(), r.ext_top) > 0) r.ext_top = c.psn();
      r.ext_top_seen = true;
      return;
    }
    if (!c.p.sacketh || !c.p.aeth) return;
    const wire::Sacketh& s = *c.p.sacketh;
    const uint32_t ref = s.sack_ref.value();
    const uint32_t base = s.bitmap_base().value();
    if (s.sack_offset.value() != 0 && c.dir.peer != nullptr && c.dir.peer->req.ext_top_seen) {
      const uint32_t top = c.dir.peer->req.ext_top;
      if (wire::psn_diff(top, ref) < kBitmapSpan) {
        return report_lazily(sink, c, "MR-SA-18", [&s, top, ref] {
          return "SACK offset " + std::to_string(s.signed_offset()) + " while the newest PSN " +
                 "received, " + hex(top, 6) + ", is within the 64 from the reference " +
                 hex(ref, 6) + ": the offset must be 0";
        });
      }
    }
    const uint32_t cumulative = ext_cumulative_psn(c).latest;  // the most lenient edge
    const uint32_t edge = (cumulative + kMprUnit * s.mpr.value()) & wire::kPsnMask;
    if (wire::psn_diff(base, edge) <= 0) return;
    report_lazily(sink, c, "MR-SA-18", [base, edge] {
      return "bitmap base " + hex(base, 6) + " is after the window's right edge " + hex(edge, 6) +
             " (cumulative PSN + 128 x MPR)";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_ext_sack_offset_checker() {
  return std::make_unique<ExtSackOffsetChecker>();
}

}  // namespace mr::analyze
