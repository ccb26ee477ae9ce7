// MR-WF-02: every packet of a base-mode QP carries BTH TVer 0.
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class VersionChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    const unsigned version = c.p.bth.version.value();
    if (version == 0) return;
    report_lazily(sink, c, "MR-WF-02",
                  [version] { return "BTH TVer is " + std::to_string(version) + ", not 0"; });
  }
};

}  // namespace

std::unique_ptr<Checker> make_version_checker() { return std::make_unique<VersionChecker>(); }

}  // namespace mr::analyze
