// MR-IC-01: every packet ends in the ICRC of section 4. A bad ICRC is a violation by the
// packet's sender (a capture point between the links may also have corrupted it: the
// explanation says so).
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class IcrcChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (c.decoded.icrc_ok()) return;
    report_lazily(sink, c, "MR-IC-01", [&c] {
      return "ICRC is " + hex(c.p.icrc.value(), 8) + " but the packet's bytes give " +
             hex(c.decoded.icrc_computed, 8);
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_icrc_checker() { return std::make_unique<IcrcChecker>(); }

}  // namespace mr::analyze
