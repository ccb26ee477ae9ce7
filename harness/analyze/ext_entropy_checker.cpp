// MR-MU-02, MR-MU-03: an Ext packet's UDP source port carries the EV its MXH names (spec
// section 20.2). In EV mode UDP the port is the EV; in EV mode FLOW, IPv6 only, the flow
// label is (plane << 16) | EV and the port its Linux fold 0xC000 | ((FL & 0x3FFF) ^
// (FL >> 14)). A capture does not say which mode a sender uses, so a packet passes if it
// holds either encoding; over IPv4 only UDP mode exists. (Which EVs a QP may use, its set,
// is the management plane's: the harness, which gave the set, judges that per connection.)
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_label_port.h"

namespace mr::analyze {
namespace {

class ExtEntropyChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.p.mxh) return;
    const uint16_t ev = c.p.mxh->ev.value();
    const uint16_t sport = c.p.udp.sport;
    if (sport == ev) return;  // EV mode UDP
    if (const auto* v6 = std::get_if<wire::Ipv6>(&c.p.ip)) {
      const uint32_t fl = v6->fl.value();
      const uint32_t flow = (uint32_t{c.p.mxh->plane.value()} << 16) | ev;
      if (fl == flow && sport == flow_label_udp_port(fl)) return;  // EV mode FLOW
      if (fl == flow) {
        return report_lazily(sink, c, "MR-MU-03", [sport, fl] {
          return "UDP source port " + hex(sport, 4) + " is not the fold " +
                 hex(flow_label_udp_port(fl), 4) + " of flow label " + hex(fl, 5) +
                 " (EV mode FLOW)";
        });
      }
    }
    report_lazily(sink, c, "MR-MU-02", [sport, ev] {
      return "UDP source port " + hex(sport, 4) + " is not the MXH EV " + hex(ev, 4) +
             " (EV mode UDP), nor, over IPv6, the fold of a flow label that names it (FLOW)";
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_ext_entropy_checker() {
  return std::make_unique<ExtEntropyChecker>();
}

}  // namespace mr::analyze
