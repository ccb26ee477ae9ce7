// MR-WF-10: a packet carries exactly the headers table 3.3 lists for its opcode. The
// decoder already rejects packets too short for their headers (reported by the analyzer as
// malformed); what remains is an opcode the table does not define at all.
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class OpcodeChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (c.info) return;
    report_lazily(sink, c, "MR-WF-10", [&c] {
      return "opcode " + hex(c.p.bth.opcode.value(), 2) +
             " is reserved, so no header layout applies to it";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_opcode_checker() { return std::make_unique<OpcodeChecker>(); }

}  // namespace mr::analyze
