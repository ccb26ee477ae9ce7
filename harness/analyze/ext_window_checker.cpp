// MR-SA-09: an Ext receiver never advertises an MPR of 0 and never moves the right edge of
// its window (cumulative PSN + 128 x MPR, modulo 2^24) backwards, ACK after ACK. The
// cumulative PSN is an ACK's BTH PSN, a NAK's or an ATOMIC_ACKNOWLEDGE's the one its bitmap
// shows (section 19.3; ext_cumulative.h). ACKs are taken in capture order: a capture taken where a
// fabric reorders them can show an older edge after a newer one.
#include "harness/analyze/checkers.h"
#include "harness/analyze/ext_cumulative.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

constexpr uint32_t kMprUnit = 128;  // PSNs per MPR unit

class ExtWindowChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.p.sacketh || !c.p.aeth) return;
    const wire::Sacketh& s = *c.p.sacketh;
    const uint32_t mpr = s.mpr.value();
    if (mpr == 0) {
      report_lazily(sink, c, "MR-SA-09", [] {
        return std::string("SACKETH MPR 0: a receiver always grants a window of 1 to 255");
      });
      return;
    }
    // Judged with the latest edge the ACK can mean, remembered as the earliest, so that an
    // uncertain cumulative PSN never makes a conformant receiver look wrong.
    const CumulativeRange c_range = ext_cumulative_psn(c);
    const uint32_t cumulative = c_range.latest;
    const uint32_t edge = (cumulative + kMprUnit * mpr) & wire::kPsnMask;
    ResponderState& r = c.dir.resp;
    const uint32_t before = r.window_edge;
    const bool backwards = r.window_edge_seen && wire::psn_diff(edge, before) < 0;
    r.window_edge_seen = true;
    if (!backwards) {
      r.window_edge = (c_range.earliest + kMprUnit * mpr) & wire::kPsnMask;
      return;
    }
    report_lazily(sink, c, "MR-SA-09", [edge, before, cumulative, mpr] {
      return "window right edge " + hex(edge, 6) + " (C " + hex(cumulative, 6) + " + 128 x MPR " +
             std::to_string(mpr) + ") is behind the " + hex(before, 6) +
             " an earlier ACK advertised";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_ext_window_checker() { return std::make_unique<ExtWindowChecker>(); }

}  // namespace mr::analyze
