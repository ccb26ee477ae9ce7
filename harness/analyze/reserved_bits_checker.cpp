// MR-WF-04: Resv6a, Resv7 and FECN are sent as 0, BECN as 0 except in a CNP.
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class ReservedBitsChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    const wire::Bth& b = c.p.bth;
    const bool becn_reserved = !c.is(wire::kCnp);
    // The common case first: every bit zero, decided without building the text.
    if ((b.resv6.value() | b.resv7.value() | b.fecn.value() |
         (becn_reserved ? b.becn.value() : 0U)) == 0) {
      return;
    }
    report_lazily(sink, c, "MR-WF-04", [&b, becn_reserved] {
      std::string bad;
      auto add = [&](std::string_view name, uint32_t v) {
        if (v == 0) return;
        bad += (bad.empty() ? "" : ", ") + std::string(name) + " = " + hex(v, 1);
      };
      add("Resv6a", b.resv6.value());
      add("Resv7", b.resv7.value());
      add("FECN", b.fecn.value());
      if (becn_reserved) add("BECN", b.becn.value());
      return "reserved BTH bits are not zero: " + bad;
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_reserved_bits_checker() {
  return std::make_unique<ReservedBitsChecker>();
}

}  // namespace mr::analyze
