// MR-AK-14: every ACK and NAK is an RC_ACKNOWLEDGE with SE 0, AckReq 0, PadCnt 0 and no payload.
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class AckFormatChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is(wire::kAck)) return;
    const wire::Bth& b = c.p.bth;
    if ((b.solicited.value() | b.ackreq.value() | b.padcount.value()) == 0) return;
    report_lazily(sink, c, "MR-AK-14", [&b] {
      std::string bad;
      auto add = [&](std::string_view what, uint32_t v) {
        if (v) bad += (bad.empty() ? "" : ", ") + std::string(what) + " " + std::to_string(v);
      };
      add("SE", b.solicited.value());
      add("AckReq", b.ackreq.value());
      add("PadCnt", b.padcount.value());
      // The decoder refuses payload on an ACKNOWLEDGE, so a payload here cannot occur; the pad
      // counts.
      return "ACK/NAK has " + bad + " (all must be 0)";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_ack_format_checker() { return std::make_unique<AckFormatChecker>(); }

}  // namespace mr::analyze
