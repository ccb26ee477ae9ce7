// MR-CC-01: a CNP has the CNP opcode, BECN 1, FECN 0, SE 0, PadCnt 0, TVer 0, AckReq 0 and
// PSN 0 (its 16 reserved bytes are read by the decoder; they are not judged).
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class CnpFormatChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is(wire::kCnp)) return;
    const wire::Bth& b = c.p.bth;
    if (b.becn.value() == 1 && (b.fecn.value() | b.solicited.value() | b.padcount.value() |
                                b.version.value() | b.ackreq.value() | b.psn.value()) == 0) {
      return;
    }
    report_lazily(sink, c, "MR-CC-01", [&b] {
      std::string bad;
      auto want = [&](std::string_view what, uint32_t v, uint32_t expected) {
        if (v == expected) return;
        bad += (bad.empty() ? "" : ", ") + std::string(what) + " " + std::to_string(v);
      };
      want("BECN", b.becn.value(), 1);
      want("FECN", b.fecn.value(), 0);
      want("SE", b.solicited.value(), 0);
      want("PadCnt", b.padcount.value(), 0);
      want("TVer", b.version.value(), 0);
      want("AckReq", b.ackreq.value(), 0);
      want("PSN", b.psn.value(), 0);
      return "CNP has " + bad + " (BECN must be 1, the others 0)";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_cnp_format_checker() { return std::make_unique<CnpFormatChecker>(); }

}  // namespace mr::analyze
