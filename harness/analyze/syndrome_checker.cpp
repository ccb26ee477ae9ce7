// MR-AK-07: a base-mode responder sends only ACK and RNR NAK syndromes and the NAK codes from
// PSN sequence error to remote operational error; the rest (invalid RD request among them,
// and every value with the reserved bit 7 or type 10) are reserved.
#include "harness/analyze/checkers.h"
#include "reference/wire/aeth_syndrome.h"

namespace mr::analyze {
namespace {

class SyndromeChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.p.aeth || !c.is_response()) return;
    const uint8_t s = c.p.aeth->syndrome.value();
    if (wire::is_ack(s) || wire::is_rnr_nak(s) ||
        (s >= wire::kNakPsnSequenceError && s <= wire::kNakRemoteOperationalError)) {
      return;
    }
    report_lazily(sink, c, "MR-AK-07",
                  [s] { return "AETH syndrome " + hex(s, 2) + " is reserved in base mode"; });
  }
};

}  // namespace

std::unique_ptr<Checker> make_syndrome_checker() { return std::make_unique<SyndromeChecker>(); }

}  // namespace mr::analyze
