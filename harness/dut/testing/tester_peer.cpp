#include "harness/dut/testing/tester_peer.h"

#include <gtest/gtest.h>

#include <utility>

namespace mr::dut::testing {

DutCall control_call(DutControl& control) {
  return [&control](std::string_view op, Json args) {
    auto r = control.call(op, std::move(args));
    EXPECT_TRUE(r) << op << ": " << (r ? "" : r.error().to_string());
    return r ? *r : Json::object();
  };
}

void create_peer_end(agent::ReferenceBackend& peer, uint64_t length, uint64_t va, PeerEnd& end) {
  auto pd = peer.create_pd();
  ASSERT_TRUE(pd);
  end.pd = *pd;
  auto mr = peer.reg_mr({end.pd, length, memory::kLocalWrite, va});
  ASSERT_TRUE(mr);
  end.mr = *mr;
  auto cq = peer.create_cq(16);
  ASSERT_TRUE(cq);
  end.cq = *cq;
  agent::CreateQpArgs init;
  init.init.pd = end.pd;
  init.init.send_cq = end.cq;
  init.init.recv_cq = end.cq;
  auto qpn = peer.create_qp(init);
  ASSERT_TRUE(qpn);
  end.qpn = *qpn;
}

void connect_peer_end(agent::ReferenceBackend& peer, const PeerEnd& end, uint32_t dut_qpn,
                      const std::string& dut_mac, const std::string& dut_ip) {
  agent::ModifyQpArgs m;
  m.qpn = end.qpn;
  m.attr.state = transport::QpState::kInit;
  m.mask = transport::kAttrState | transport::kAttrPkey | transport::kAttrAccessFlags;
  ASSERT_TRUE(peer.modify_qp(m));
  m.attr.state = transport::QpState::kRtr;
  m.attr.dest_qpn = dut_qpn;
  m.mask = transport::kAttrState | transport::kAttrAddress | transport::kAttrPathMtu |
           transport::kAttrDestQpn | transport::kAttrRqPsn | transport::kAttrMaxDestRdAtomic |
           transport::kAttrMinRnrTimer;
  agent::AvArgs av;
  av.dmac = wire::MacAddress::parse(dut_mac);
  const auto dip = wire::Ipv4Address::parse(dut_ip);
  ASSERT_TRUE(dip) << dut_ip;
  av.dip = *dip;
  m.av = av;
  ASSERT_TRUE(peer.modify_qp(m));
  m.attr.state = transport::QpState::kRts;
  m.mask = transport::kAttrState | transport::kAttrSqPsn | transport::kAttrTimeout |
           transport::kAttrRetryCnt | transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic;
  m.av.reset();
  ASSERT_TRUE(peer.modify_qp(m));
}

}  // namespace mr::dut::testing
