// MR-AK-05: a requester sets AckReq on the last or only packet of every request message of an
// acknowledged transport (not UC or UD, whose AckReq is 0).
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class AckReqChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is_request() || !c.is(wire::kEnd) || c.p.bth.ackreq.value()) return;
    const auto t = c.info->transport;  // is_request() implies an opcode of the table
    if (t == wire::Transport::kUc || t == wire::Transport::kUd) return;
    report_lazily(sink, c, "MR-AK-05", [&c] {
      return wire::opcode_name(c.p.bth.opcode.value()) + " PSN " + hex(c.psn()) +
             " ends a message without AckReq";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_ackreq_checker() { return std::make_unique<AckReqChecker>(); }

}  // namespace mr::analyze
