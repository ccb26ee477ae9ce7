#include "reference/testbed/rc_connection.h"

#include <tuple>

namespace mr::testbed {

using transport::QpAttributes;
using transport::QpState;

Expected<RcConnection, std::string> connect_rc(const ConnectEnd& a, const ConnectEnd& b,
                                               const ConnectOptions& o) {
  RcConnection c{.a = a.endpoint, .b = b.endpoint};
  const uint32_t access =
      memory::kLocalWrite | memory::kRemoteWrite | memory::kRemoteRead | memory::kRemoteAtomic;
  for (auto [end, qpn, mr] : {std::tuple{&a, &c.qp_a, &c.mr_a}, std::tuple{&b, &c.qp_b, &c.mr_b}}) {
    transport::QpInitAttributes init;
    init.pd = end->pd;
    init.send_cq = init.recv_cq = end->cq;
    const std::string who = "endpoint " + std::to_string(end->endpoint) + ": ";
    auto q = end->device.create_qp(init);
    if (!q) return Unexpected<std::string>(who + "create_qp: " + q.error().message);
    *qpn = *q;
    auto m = end->device.memory().reg_mr(end->pd, o.region_bytes, access);
    if (!m) return Unexpected<std::string>(who + "reg_mr: " + m.error());
    *mr = *m;
  }
  const uint32_t psn_a = 0x100 + a.endpoint, psn_b = 0x100 + b.endpoint;
  for (auto [self, peer, mine, theirs, my_psn, peer_psn] :
       {std::tuple{&a, &b, c.qp_a, c.qp_b, psn_a, psn_b},
        std::tuple{&b, &a, c.qp_b, c.qp_a, psn_b, psn_a}}) {
    transport::Device& d = self->device;
    const std::string who = "endpoint " + std::to_string(self->endpoint) + ": ";
    const transport::DeviceConfig& other = peer->device.config();
    QpAttributes attr;
    attr.state = QpState::kInit;
    attr.access_flags =
        transport::kQpRemoteWrite | transport::kQpRemoteRead | transport::kQpRemoteAtomic;
    using namespace transport;  // the attribute mask bits
    if (auto ok = d.modify_qp(mine, attr, kAttrState | kAttrPkey | kAttrAccessFlags); !ok)
      return Unexpected<std::string>(who + "INIT: " + ok.error().message);
    attr.state = QpState::kRtr;
    attr.path_mtu = o.path_mtu;
    attr.av.smac = d.config().mac;
    attr.av.dmac = other.mac;
    attr.av.sip = d.config().ip;
    attr.av.dip = other.ip;
    attr.av.udp_sport = static_cast<uint16_t>(0xc000 | (mine & 0x3fff));
    attr.av.traffic_class = o.traffic_class;
    attr.dest_qpn = theirs;
    attr.rq_psn = peer_psn;
    attr.max_dest_rd_atomic = 16;
    attr.peer_mxcap = other.mxcap;  // what the CM exchange would carry
    if (auto ok = d.modify_qp(mine, attr,
                              kAttrState | kAttrPathMtu | kAttrAddress | kAttrDestQpn | kAttrRqPsn |
                                  kAttrMaxDestRdAtomic | kAttrMinRnrTimer | kAttrPeerMxcap);
        !ok)
      return Unexpected<std::string>(who + "RTR: " + ok.error().message);
    attr.state = QpState::kRts;
    attr.sq_psn = my_psn;
    attr.timeout = o.timeout;
    attr.retry_cnt = o.retry_cnt;
    attr.rnr_retry = 7;
    attr.max_rd_atomic = 16;
    if (auto ok = d.modify_qp(mine, attr,
                              kAttrState | kAttrSqPsn | kAttrTimeout | kAttrRetryCnt |
                                  kAttrRnrRetry | kAttrMaxRdAtomic);
        !ok)
      return Unexpected<std::string>(who + "RTS: " + ok.error().message);
  }
  return c;
}

}  // namespace mr::testbed
