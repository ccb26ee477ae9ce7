// Two reference devices exchanging UD datagrams by hand (no fabric: each frame is passed
// on, inspected or altered by the test): DETH contents, AckReq, the PMTU limit, the Q_Key
// check and its counter, the GRH area, drops when no WQE fits, controlled Q_Keys, and the
// UD state-transition rules.
#include <gtest/gtest.h>

#include <vector>

#include "reference/transport/device.h"
#include "reference/transport/ud_responder.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace mr::transport {
namespace {

constexpr uint32_t kQkey = 0x11223344;
constexpr uint64_t kNow = 1'000'000;

struct UdEnd {
  Device dev;
  uint32_t pd = 0;
  uint32_t cq = 0;
  uint32_t qpn = 0;
  memory::MrInfo mr;

  explicit UdEnd(int host, mutants::MutantSet m = {}) : dev(config(host, m)) {
    pd = *dev.memory().alloc_pd();
    cq = *dev.create_cq(1024);
    QpInitAttributes init;
    init.type = QpType::kUd;
    init.pd = pd;
    init.send_cq = init.recv_cq = cq;
    qpn = *dev.create_qp(init);
    mr = *dev.memory().reg_mr(pd, 1 << 16, memory::kLocalWrite, 0x10000000);
    QpAttributes attr;
    attr.state = QpState::kInit;
    attr.pkey = 0xffff;
    attr.qkey = kQkey;
    EXPECT_TRUE(dev.modify_qp(qpn, attr, kAttrState | kAttrPkey | kAttrQkey));
    attr.state = QpState::kRtr;
    attr.path_mtu = 1024;
    EXPECT_TRUE(dev.modify_qp(qpn, attr, kAttrState | kAttrPathMtu));
    attr.state = QpState::kRts;
    attr.sq_psn = 0x100;
    EXPECT_TRUE(dev.modify_qp(qpn, attr, kAttrState | kAttrSqPsn));
  }

  static DeviceConfig config(int host, mutants::MutantSet m) {
    DeviceConfig c;
    c.mac = *wire::MacAddress::parse(host == 1 ? "02:00:00:00:00:01" : "02:00:00:00:00:02");
    c.ip = *wire::Ipv4Address::parse(host == 1 ? "198.18.0.1" : "198.18.0.2");
    c.seed = static_cast<uint64_t>(host) * 31;
    c.mutants = m;
    return c;
  }

  UdDestination to(const UdEnd& peer, uint32_t qkey = kQkey) const {
    UdDestination d;
    d.ah.smac = dev.config().mac;
    d.ah.dmac = peer.dev.config().mac;
    d.ah.sip = dev.config().ip;
    d.ah.dip = peer.dev.config().ip;
    d.remote_qpn = peer.qpn;
    d.remote_qkey = qkey;
    return d;
  }

  // Posts a SEND of `data` (written at offset 0) and returns the frames it produced.
  std::vector<std::vector<uint8_t>> send(const UdEnd& peer, const std::vector<uint8_t>& data,
                                         uint32_t qkey = kQkey, bool imm = false) {
    EXPECT_TRUE(dev.memory().write(mr.lkey, mr.va, data));
    SendWr wr;
    wr.wr_id = 7;
    wr.opcode = imm ? SendOpcode::kSendWithImm : SendOpcode::kSend;
    wr.imm_data = 0xcafe;
    wr.sg_list = {Sge{mr.va, static_cast<uint32_t>(data.size()), mr.lkey}};
    wr.ud = to(peer, qkey);
    EXPECT_TRUE(dev.post_send(qpn, wr));
    dev.advance(kNow);
    return dev.take_outbox();
  }

  void post_recv(uint64_t offset, uint32_t len, uint64_t id) {
    ASSERT_TRUE(dev.post_recv(qpn, RecvWr{id, {Sge{mr.va + offset, len, mr.lkey}}}));
  }
  std::vector<Completion> poll() { return *dev.poll_cq(cq, 16); }
  std::vector<uint8_t> read(uint64_t offset, size_t n) {
    return *dev.memory().read(mr.lkey, mr.va + offset, n);
  }
};

wire::RocePacket decode(const std::vector<uint8_t>& frame) {
  auto d = wire::decode_frame(frame);
  EXPECT_TRUE(d);
  return std::get<wire::DecodedRoce>(*d).packet;
}

// The frame with its DETH Q_Key replaced (ICRC recomputed).
std::vector<uint8_t> with_qkey(const std::vector<uint8_t>& frame, uint32_t qkey) {
  auto d = wire::decode_frame(frame);
  wire::RocePacket p = std::get<wire::DecodedRoce>(*d).packet;
  p.deth->qkey = qkey;
  return wire::build_frame(p, {});
}

TEST(UnreliableDatagram, SendIsOneSendOnlyWithDethAndNoAckReq) {
  UdEnd a(1), b(2);
  const std::vector<uint8_t> data(300, 0x5a);
  auto frames = a.send(b, data);
  ASSERT_EQ(frames.size(), 1U);
  const auto p = decode(frames[0]);
  EXPECT_EQ(p.bth.opcode, wire::kOpUdSendOnly);
  EXPECT_EQ(p.bth.ackreq, 0U);
  EXPECT_EQ(p.bth.dqpn, b.qpn);
  EXPECT_EQ(p.bth.psn, 0x100U);
  ASSERT_TRUE(p.deth);
  EXPECT_EQ(p.deth->qkey, kQkey);
  EXPECT_EQ(p.deth->sqpn, a.qpn);
  EXPECT_EQ(p.payload.size(), 300U);
  const auto c = a.poll();
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].status, WcStatus::kSuccess);
  EXPECT_EQ(c[0].byte_len, 300U);
}

TEST(UnreliableDatagram, ImmediateUsesOpcode65AndReachesTheCompletion) {
  UdEnd a(1), b(2);
  b.post_recv(0, 256, 9);
  auto frames = a.send(b, {1, 2, 3}, kQkey, true);
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(decode(frames[0]).bth.opcode, wire::kOpUdSendOnlyWithImmediate);
  b.dev.receive(frames[0], kNow);
  const auto c = b.poll();
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].imm_data, 0xcafeU);
}

TEST(UnreliableDatagram, MessageLargerThanPmtuIsALengthErrorNotAPacket) {
  UdEnd a(1), b(2);
  auto frames = a.send(b, std::vector<uint8_t>(1025, 1));
  EXPECT_TRUE(frames.empty());
  const auto c = a.poll();
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].status, WcStatus::kLocalLengthError);
}

TEST(UnreliableDatagram, ReceiveFillsGrhAreaAndReportsSourceQpn) {
  UdEnd a(1), b(2);
  b.post_recv(0x100, 1024, 42);
  const std::vector<uint8_t> data{'h', 'e', 'l', 'l', 'o'};
  auto frames = a.send(b, data);
  ASSERT_EQ(frames.size(), 1U);
  b.dev.receive(frames[0], kNow);
  EXPECT_TRUE(b.dev.take_outbox().empty());  // no ACK for a datagram
  const auto c = b.poll();
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].wr_id, 42U);
  EXPECT_EQ(c[0].status, WcStatus::kSuccess);
  EXPECT_EQ(c[0].byte_len, kGrhAreaBytes + 5);
  EXPECT_EQ(c[0].src_qp, a.qpn);
  EXPECT_TRUE(c[0].grh);
  // IPv4: 20 zero bytes, then the IPv4 header as received (Linux's union rdma_network_hdr).
  const auto area = b.read(0x100, kGrhAreaBytes);
  EXPECT_EQ(std::vector<uint8_t>(area.begin(), area.begin() + 20), std::vector<uint8_t>(20, 0));
  EXPECT_EQ(std::vector<uint8_t>(area.begin() + 20, area.end()),
            std::vector<uint8_t>(frames[0].begin() + 14, frames[0].begin() + 34));
  EXPECT_EQ(b.read(0x100 + kGrhAreaBytes, 5), data);
}

TEST(UnreliableDatagram, WrongQkeyIsDroppedAndCounted) {
  UdEnd a(1), b(2);
  b.post_recv(0, 1024, 1);
  auto frames = a.send(b, {1, 2, 3, 4});
  b.dev.receive(with_qkey(frames[0], kQkey ^ 1), kNow);
  EXPECT_TRUE(b.poll().empty());
  EXPECT_TRUE(b.dev.take_outbox().empty());
  EXPECT_EQ(b.dev.counters().qkey_viol_cntr, 1U);
  // Still operational: the right Q_Key is delivered into the WQE the bad one left alone.
  b.dev.receive(frames[0], kNow);
  ASSERT_EQ(b.poll().size(), 1U);
}

TEST(UnreliableDatagram, QkeyNotCheckedMutantDelivers) {
  mutants::MutantSet m;
  m.enable(mutants::Mutant::kQkeyNotChecked);
  UdEnd a(1), b(2, m);
  b.post_recv(0, 1024, 1);
  auto frames = a.send(b, {1, 2, 3, 4});
  b.dev.receive(with_qkey(frames[0], 0x99), kNow);
  EXPECT_EQ(b.poll().size(), 1U);
}

TEST(UnreliableDatagram, NoWqeOrTooSmallWqeDropsSilently) {
  UdEnd a(1), b(2);
  auto frames = a.send(b, std::vector<uint8_t>(100, 3));
  b.dev.receive(frames[0], kNow);  // no receive WQE at all
  EXPECT_TRUE(b.poll().empty());
  b.post_recv(0, 139, 5);  // GRH area + 99 bytes: one byte short
  b.dev.receive(frames[0], kNow);
  EXPECT_TRUE(b.poll().empty());
  EXPECT_TRUE(b.dev.take_outbox().empty());
  EXPECT_EQ(b.dev.counters().dropped_no_rwqe, 2U);
  b.post_recv(0x1000, 140, 6);  // the short WQE is still first: it is skipped by nothing
  b.dev.receive(frames[0], kNow);
  EXPECT_TRUE(b.poll().empty());  // the first WQE is still too short
}

TEST(UnreliableDatagram, ControlledQkeySendsTheQpsOwnQkey) {
  UdEnd a(1), b(2);
  auto frames = a.send(b, {1}, 0x80000001);
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(decode(frames[0]).deth->qkey, kQkey);
  frames = a.send(b, {1}, 0x00000001);  // not controlled: sent as given
  EXPECT_EQ(decode(frames[0]).deth->qkey, 1U);
}

TEST(UnreliableDatagram, InitRequiresQkeyAndRtrNeedsNoPeer) {
  DeviceConfig c = UdEnd::config(1, {});
  Device dev(c);
  const uint32_t pd = *dev.memory().alloc_pd();
  const uint32_t cq = *dev.create_cq(16);
  QpInitAttributes init;
  init.type = QpType::kUd;
  init.pd = pd;
  init.send_cq = init.recv_cq = cq;
  const uint32_t qpn = *dev.create_qp(init);
  QpAttributes attr;
  attr.state = QpState::kInit;
  EXPECT_FALSE(dev.modify_qp(qpn, attr, kAttrState | kAttrPkey));
  EXPECT_TRUE(dev.modify_qp(qpn, attr, kAttrState | kAttrPkey | kAttrQkey));
  attr.state = QpState::kRtr;
  EXPECT_TRUE(dev.modify_qp(qpn, attr, kAttrState));
  attr.state = QpState::kRts;
  EXPECT_FALSE(dev.modify_qp(qpn, attr, kAttrState));
  EXPECT_TRUE(dev.modify_qp(qpn, attr, kAttrState | kAttrSqPsn));
}

TEST(UnreliableDatagram, PostSendChecksOpcodeAndDestination) {
  UdEnd a(1), b(2);
  SendWr wr;
  wr.opcode = SendOpcode::kSend;
  EXPECT_FALSE(a.dev.post_send(a.qpn, wr));  // no destination
  wr.ud = a.to(b);
  wr.opcode = SendOpcode::kWrite;
  EXPECT_FALSE(a.dev.post_send(a.qpn, wr));
  wr.opcode = SendOpcode::kSend;
  EXPECT_TRUE(a.dev.post_send(a.qpn, wr));
}

TEST(UnreliableDatagram, RcOpcodeToUdQpIsDropped) {
  UdEnd a(1), b(2);
  b.post_recv(0, 1024, 1);
  auto frames = a.send(b, {1, 2});
  auto d = wire::decode_frame(frames[0]);
  wire::RocePacket p = std::get<wire::DecodedRoce>(*d).packet;
  p.bth.opcode = wire::kOpRcSendOnly;
  p.deth.reset();
  b.dev.receive(wire::build_frame(p, {}), kNow);
  EXPECT_TRUE(b.poll().empty());
  EXPECT_EQ(b.dev.counters().dropped_transport, 1U);
}

}  // namespace
}  // namespace mr::transport
