// MR-AK-07: a base-mode responder sends only syndromes 0x00-0x3F and 0x60-0x63.
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class SyndromeChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.p.aeth || !c.is_response()) return;
    const uint8_t s = c.p.aeth->syndrome.value();
    if (s <= 0x3f || (s >= 0x60 && s <= 0x63)) return;
    report_lazily(sink, c, "MR-AK-07",
                  [s] { return "AETH syndrome " + hex(s, 2) + " is reserved in base mode"; });
  }
};

}  // namespace

std::unique_ptr<Checker> make_syndrome_checker() { return std::make_unique<SyndromeChecker>(); }

}  // namespace mr::analyze
