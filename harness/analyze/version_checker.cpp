// MR-WF-02: every packet of a base-mode QP carries BTH TVer 0. A capture does not say
// which QPs negotiated extension mode (spec section 18: the management plane or CM private
// data does), so from the packets alone only a TVer that no mode uses is a violation: 1 is
// a MetaRoCE Ext packet. The harness, which set the QP up, checks 0 against 1 per
// connection (packet_synthesis's implicit checks).
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class VersionChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    const unsigned version = c.p.bth.version.value();
    if (version == 0 || version == wire::kExtVersion) return;
    report_lazily(sink, c, "MR-WF-02", [version] {
      return "BTH TVer is " + std::to_string(version) +
             ", neither 0 (base) nor 1 (MetaRoCE extension mode)";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_version_checker() { return std::make_unique<VersionChecker>(); }

}  // namespace mr::analyze
