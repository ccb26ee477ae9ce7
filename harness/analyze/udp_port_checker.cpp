// MR-WF-08: all packets a base-mode RC QP emits carry one UDP source port for the
// connection's life (CNPs, sent by the notification point on behalf of no QP's stream, are
// exempt, and so are Ext packets, TVer 1: their port is their EV, spec section 20.2).
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class UdpPortChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (c.is(wire::kCnp) || c.p.bth.is_ext() || !c.dir.sport_known) return;
    const uint16_t sport = c.p.udp.sport.value();
    if (sport == c.dir.sport) return;
    report_lazily(sink, c, "MR-WF-08", [&c, sport] {
      return "UDP source port changed from " + std::to_string(c.dir.sport) + " to " +
             std::to_string(sport) + " within one connection";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_udp_port_checker() { return std::make_unique<UdpPortChecker>(); }

}  // namespace mr::analyze
