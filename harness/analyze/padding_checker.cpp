// MR-WF-06: PadCnt = (-payload length) mod 4, pad bytes 0, FIRST and MIDDLE with PadCnt 0.
#include <algorithm>

#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class PaddingChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    const unsigned pad = c.p.bth.padcount.value();
    const size_t len = c.p.payload.size();
    const unsigned want = static_cast<unsigned>(-len & 3U);
    if ((c.is(wire::kFirst) || c.is(wire::kMiddle)) && pad != 0) {
      report_lazily(sink, c, "MR-WF-06", [pad] {
        return "a FIRST or MIDDLE packet has PadCnt " + std::to_string(pad) + ", not 0";
      });
    } else if (pad != want) {
      report_lazily(sink, c, "MR-WF-06", [pad, len, want] {
        return "PadCnt is " + std::to_string(pad) + " for a " + std::to_string(len) +
               "-byte payload, not " + std::to_string(want);
      });
    }
    if (std::ranges::any_of(c.p.pad, [](uint8_t b) { return b != 0; })) {
      report_lazily(sink, c, "MR-WF-06", [] { return std::string("pad bytes are not zero"); });
    }
  }
};

}  // namespace

std::unique_ptr<Checker> make_padding_checker() { return std::make_unique<PaddingChecker>(); }

}  // namespace mr::analyze
