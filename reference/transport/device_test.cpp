// Two reference devices back to back: every operation, size and MTU, PSN wrap, and
// recovery from seeded loss, reordering, duplication and corruption. Memory contents and
// completions must match what the work requests asked for.
#include "reference/transport/device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>

#include "reference/transport/testing/loopback_fabric.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/psn.h"

namespace mr::transport {
namespace {

using testing::LoopbackFabric;

constexpr uint32_t kAllRemote =
    memory::kLocalWrite | memory::kRemoteWrite | memory::kRemoteRead | memory::kRemoteAtomic;

struct Endpoint {
  Device dev;
  uint32_t pd = 0;
  uint32_t cq = 0;
  uint32_t qpn = 0;
  memory::MrInfo mr;
  explicit Endpoint(const DeviceConfig& c) : dev(c) {}
};

DeviceConfig config(int host) {
  DeviceConfig c;
  c.mac = *wire::MacAddress::parse(host == 1 ? "02:00:00:00:00:01" : "02:00:00:00:00:02");
  c.ip = *wire::Ipv4Address::parse(host == 1 ? "198.18.0.1" : "198.18.0.2");
  c.seed = static_cast<uint64_t>(host) * 77;
  return c;
}

class DevicePair : public ::testing::Test {
 protected:
  static constexpr uint64_t kMrSize = 4 << 20;

  void SetUp() override { build(1024, 0, 0); }

  void build(uint32_t mtu, uint32_t psn_a, uint32_t psn_b, uint8_t retry_cnt = 7,
             uint8_t rnr_retry = 7) {
    a_ = std::make_unique<Endpoint>(config(1));
    b_ = std::make_unique<Endpoint>(config(2));
    for (Endpoint* e : {a_.get(), b_.get()}) {
      e->pd = *e->dev.memory().alloc_pd();
      e->cq = *e->dev.create_cq(100000);
      QpInitAttributes init;
      init.pd = e->pd;
      init.send_cq = init.recv_cq = e->cq;
      e->qpn = *e->dev.create_qp(init);
      e->mr = *e->dev.memory().reg_mr(e->pd, kMrSize, kAllRemote,
                                      e == a_.get() ? 0x10000000 : 0x20000000);
    }
    connect(*a_, *b_, mtu, psn_a, psn_b, retry_cnt, rnr_retry);
    connect(*b_, *a_, mtu, psn_b, psn_a, retry_cnt, rnr_retry);
    fabric_ = std::make_unique<LoopbackFabric>(a_->dev, b_->dev, 4242);
  }

  static void connect(Endpoint& self, Endpoint& peer, uint32_t mtu, uint32_t my_psn,
                      uint32_t peer_psn, uint8_t retry_cnt, uint8_t rnr_retry) {
    QpAttributes attr;
    attr.state = QpState::kInit;
    attr.pkey = 0xffff;
    attr.access_flags = kQpRemoteWrite | kQpRemoteRead | kQpRemoteAtomic;
    ASSERT_TRUE(self.dev.modify_qp(self.qpn, attr, kAttrState | kAttrPkey | kAttrAccessFlags));
    attr.state = QpState::kRtr;
    attr.path_mtu = mtu;
    attr.av.smac = self.dev.config().mac;
    attr.av.dmac = peer.dev.config().mac;
    attr.av.sip = self.dev.config().ip;
    attr.av.dip = peer.dev.config().ip;
    attr.av.udp_sport = 0xc000 + (self.qpn & 0x3fff);
    attr.dest_qpn = peer.qpn;
    attr.rq_psn = peer_psn;
    attr.max_dest_rd_atomic = 16;
    attr.min_rnr_timer = 1;
    ASSERT_TRUE(self.dev.modify_qp(self.qpn, attr,
                                   kAttrState | kAttrPathMtu | kAttrAddress | kAttrDestQpn |
                                       kAttrRqPsn | kAttrMaxDestRdAtomic | kAttrMinRnrTimer));
    attr.state = QpState::kRts;
    attr.sq_psn = my_psn;
    attr.timeout = 14;
    attr.retry_cnt = retry_cnt;
    attr.rnr_retry = rnr_retry;
    attr.max_rd_atomic = 16;
    ASSERT_TRUE(self.dev.modify_qp(
        self.qpn, attr,
        kAttrState | kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxRdAtomic));
  }

  std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
    std::vector<uint8_t> v(n);
    std::mt19937 g(seed);
    for (auto& x : v) x = static_cast<uint8_t>(g());
    return v;
  }

  void fill(Endpoint& e, uint64_t offset, const std::vector<uint8_t>& data) {
    ASSERT_TRUE(e.dev.memory().write(e.mr.lkey, e.mr.va + offset, data));
  }
  std::vector<uint8_t> read(Endpoint& e, uint64_t offset, size_t n) {
    return *e.dev.memory().read(e.mr.lkey, e.mr.va + offset, n);
  }

  std::vector<Completion> wait_for(Endpoint& e, size_t n, uint64_t max_ns = 60'000'000'000ULL) {
    std::vector<Completion> got;
    fabric_->run_until(
        [&] {
          auto c = *e.dev.poll_cq(e.cq, 1000);
          got.insert(got.end(), c.begin(), c.end());
          return got.size() >= n;
        },
        max_ns);
    return got;
  }

  SendWr wr(SendOpcode op, uint64_t local_off, uint32_t len, uint64_t remote_off, uint64_t id = 1) {
    SendWr w;
    w.wr_id = id;
    w.opcode = op;
    w.sg_list = {Sge{a_->mr.va + local_off, len, a_->mr.lkey}};
    w.remote_addr = b_->mr.va + remote_off;
    w.rkey = b_->mr.rkey;
    return w;
  }

  void post_recv(Endpoint& e, uint64_t offset, uint32_t len, uint64_t id) {
    ASSERT_TRUE(e.dev.post_recv(e.qpn, RecvWr{id, {Sge{e.mr.va + offset, len, e.mr.lkey}}}));
  }

  std::unique_ptr<Endpoint> a_, b_;
  std::unique_ptr<LoopbackFabric> fabric_;
};

TEST_F(DevicePair, SendOfEverySizeArrivesIntact) {
  for (uint32_t mtu : {256U, 1024U, 4096U}) {
    build(mtu, 100, 200);
    for (uint32_t len : {0U, 1U, 3U, mtu - 1, mtu, mtu + 1, 3 * mtu, 100000U}) {
      const auto data = pattern(len, len);
      fill(*a_, 0, data);
      post_recv(*b_, 0, 200000, 7);
      ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kSend, 0, len, 0)));
      auto sent = wait_for(*a_, 1);
      auto got = wait_for(*b_, 1);
      ASSERT_EQ(sent.size(), 1U) << "mtu " << mtu << " len " << len;
      ASSERT_EQ(got.size(), 1U);
      EXPECT_EQ(sent[0].status, WcStatus::kSuccess);
      EXPECT_EQ(got[0].status, WcStatus::kSuccess);
      EXPECT_EQ(got[0].opcode, WcOpcode::kRecv);
      EXPECT_EQ(got[0].byte_len, len);
      EXPECT_EQ(read(*b_, 0, len), data) << "mtu " << mtu << " len " << len;
    }
  }
}

// Lists longer than the two entries held inline: gathered from three pieces of the sender's
// region, scattered into three of the receiver's.
TEST_F(DevicePair, SendGathersAndScattersThroughThreeSges) {
  const auto data = pattern(3000, 5);
  fill(*a_, 0, std::vector<uint8_t>(data.begin(), data.begin() + 1000));
  fill(*a_, 10000, std::vector<uint8_t>(data.begin() + 1000, data.begin() + 1500));
  fill(*a_, 20000, std::vector<uint8_t>(data.begin() + 1500, data.end()));
  RecvWr recv{9, {}};
  for (uint64_t at : {0U, 5000U, 9000U})
    recv.sg_list.push_back(Sge{b_->mr.va + at, 1000, b_->mr.lkey});
  ASSERT_TRUE(b_->dev.post_recv(b_->qpn, recv));
  SendWr w = wr(SendOpcode::kSend, 0, 1000, 0);
  w.sg_list.push_back(Sge{a_->mr.va + 10000, 500, a_->mr.lkey});
  w.sg_list.push_back(Sge{a_->mr.va + 20000, 1500, a_->mr.lkey});
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, w));
  const auto got = wait_for(*b_, 1);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].status, WcStatus::kSuccess);
  EXPECT_EQ(got[0].byte_len, 3000U);
  std::vector<uint8_t> placed = read(*b_, 0, 1000);
  for (uint64_t at : {5000U, 9000U}) {
    const auto part = read(*b_, at, 1000);
    placed.insert(placed.end(), part.begin(), part.end());
  }
  EXPECT_EQ(placed, data);
}

// A driver that gives its frames back (Device::recycle) gets the next frames built in their
// buffers: no allocation per packet, and the frames are the same as in fresh buffers.
TEST_F(DevicePair, BuildsTheNextFramesInTheBuffersItWasGivenBack) {
  const auto first = pattern(1000, 1);
  const auto second = pattern(600, 2);  // a shorter frame in the longer one's buffer
  fill(*a_, 0, first);
  fill(*a_, 4096, second);
  post_recv(*b_, 0, 1000, 1);
  post_recv(*b_, 4096, 1000, 2);
  uint64_t now = 1'000'000;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kSend, 0, 1000, 0)));
  a_->dev.advance(now);
  auto frames = a_->dev.take_outbox();
  ASSERT_EQ(frames.size(), 1U);
  b_->dev.receive(frames[0], now);
  const uint8_t* buffer = frames[0].data();
  const std::vector<uint8_t>* list = frames.data();
  a_->dev.recycle(frames);
  EXPECT_TRUE(frames.empty());
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kSend, 4096, 600, 0)));
  a_->dev.advance(++now);
  frames = a_->dev.take_outbox();
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(frames[0].data(), buffer);
  EXPECT_EQ(frames.data(), list);  // the list given back, too
  const auto decoded = wire::decode_frame(frames[0]);
  ASSERT_TRUE(decoded) << decoded.error().to_string();
  EXPECT_TRUE(std::get<wire::DecodedRoce>(*decoded).icrc_ok());
  b_->dev.receive(frames[0], now);
  const auto got = *b_->dev.poll_cq(b_->cq, 10);
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[1].byte_len, 600U);
  EXPECT_EQ(read(*b_, 0, 1000), first);
  EXPECT_EQ(read(*b_, 4096, 600), second);
}

// The engines as the state machines they are: one trace entry per step of each driver loop.
TEST_F(DevicePair, AStepTraceShowsEachEngineWalkingItsStates) {
  StepTrace on_a;
  StepTrace on_b;
  a_->dev.set_step_trace(&on_a);
  b_->dev.set_step_trace(&on_b);
  post_recv(*b_, 0, 64, 7);
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kSend, 0, 16, 0)));
  ASSERT_EQ(wait_for(*a_, 1).size(), 1U);
  using V = std::vector<std::string_view>;
  EXPECT_EQ(on_b.states("responder"),
            (V{"CheckPsn", "CheckOpSequence", "CheckOpValid", "CheckResource", "CheckLength",
               "CheckRkey", "Execute", "Acknowledge"}))
      << on_b.text();
  EXPECT_EQ(on_a.states("completer"), (V{"CheckPsn", "CheckAck", "Acknowledge"})) << on_a.text();
  const V requester = on_a.states("requester");
  ASSERT_GE(requester.size(), 3U) << on_a.text();
  EXPECT_EQ(V(requester.begin(), requester.begin() + 3), (V{"GetWqe", "CheckLimits", "Transmit"}));
  a_->dev.set_step_trace(nullptr);
  b_->dev.set_step_trace(nullptr);
}

TEST(StepTrace, KeepsTheNewestStepsInOrder) {
  StepTrace t(2);
  t.record("responder", "CheckPsn", 1);
  t.record("responder", "Duplicate", 1);
  t.record("completer", "CheckPsn", 0x123456);
  EXPECT_EQ(t.recorded(), 3U);
  EXPECT_EQ(t.states("responder"), std::vector<std::string_view>{"Duplicate"});
  EXPECT_EQ(t.text(), "responder psn 0x000001 Duplicate\ncompleter psn 0x123456 CheckPsn\n");
  t.clear();
  EXPECT_TRUE(t.steps().empty());
}

TEST_F(DevicePair, WriteReadAndImmediateOfManySizes) {
  for (uint32_t len : {0U, 8U, 1024U, 4097U, 65536U, 1U << 20}) {
    const auto data = pattern(len, len + 1);
    fill(*a_, 0, data);
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kWrite, 0, len, 4096)));
    ASSERT_EQ(wait_for(*a_, 1).at(0).status, WcStatus::kSuccess) << len;
    EXPECT_EQ(read(*b_, 4096, len), data) << len;
    // Read it back into another place of A.
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kRead, 2 << 20, len, 4096)));
    auto c = wait_for(*a_, 1);
    ASSERT_EQ(c.at(0).status, WcStatus::kSuccess) << len;
    EXPECT_EQ(c[0].opcode, WcOpcode::kRdmaRead);
    EXPECT_EQ(read(*a_, 2 << 20, len), data) << len;
  }
  post_recv(*b_, 0, 16, 9);
  auto w = wr(SendOpcode::kWriteWithImm, 0, 100, 0);
  w.imm_data = 0x12345678;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, w));
  auto got = wait_for(*b_, 1);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].opcode, WcOpcode::kRecvRdmaWithImm);
  EXPECT_EQ(got[0].imm_data, 0x12345678U);
  EXPECT_EQ(got[0].byte_len, 100U);
}

TEST_F(DevicePair, LargeMessagesAtEveryMtuWithLoss) {
  // 16 MiB at MTU 4096 (4,096 packets each way); 1 MiB at the smaller MTUs keeps the
  // packet count, and the test's time under the sanitizers, in proportion.
  for (uint32_t mtu : {256U, 512U, 1024U, 2048U, 4096U}) {
    const uint32_t kLen = mtu == 4096 ? 16 << 20 : 1 << 20;
    a_ = std::make_unique<Endpoint>(config(1));
    b_ = std::make_unique<Endpoint>(config(2));
    for (Endpoint* e : {a_.get(), b_.get()}) {
      e->pd = *e->dev.memory().alloc_pd();
      e->cq = *e->dev.create_cq(1000);
      QpInitAttributes init;
      init.pd = e->pd;
      init.send_cq = init.recv_cq = e->cq;
      e->qpn = *e->dev.create_qp(init);
      e->mr = *e->dev.memory().reg_mr(e->pd, 2 * uint64_t{kLen}, kAllRemote,
                                      e == a_.get() ? 0x10000000 : 0x20000000);
    }
    connect(*a_, *b_, mtu, 0xffff00, 77, 7, 7);
    connect(*b_, *a_, mtu, 77, 0xffff00, 7, 7);
    fabric_ = std::make_unique<LoopbackFabric>(a_->dev, b_->dev, mtu);
    fabric_->set_impairment({.drop = 0.001, .duplicate = 0.001, .reorder = 0.001, .corrupt = 0.0});
    const auto data = pattern(kLen, mtu);
    fill(*a_, 0, data);
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kWrite, 0, kLen, 0)));
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kRead, kLen, kLen, 0, 2)));
    auto c = wait_for(*a_, 2, 600'000'000'000ULL);
    ASSERT_EQ(c.size(), 2U) << "mtu " << mtu;
    EXPECT_EQ(c[0].status, WcStatus::kSuccess) << "mtu " << mtu;
    EXPECT_EQ(c[1].status, WcStatus::kSuccess) << "mtu " << mtu;
    EXPECT_TRUE(read(*b_, 0, kLen) == data) << "WRITE data differs at mtu " << mtu;
    EXPECT_TRUE(read(*a_, kLen, kLen) == data) << "READ data differs at mtu " << mtu;
  }
}

TEST_F(DevicePair, AtomicsReturnTheOriginalValue) {
  const uint64_t initial = 40;
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), &initial, 8);
  fill(*b_, 64, bytes);
  auto fa = wr(SendOpcode::kFetchAdd, 0, 8, 64);
  fa.compare_add = 2;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, fa));
  ASSERT_EQ(wait_for(*a_, 1).at(0).status, WcStatus::kSuccess);
  uint64_t v = 0;
  std::memcpy(&v, read(*a_, 0, 8).data(), 8);
  EXPECT_EQ(v, 40U);
  auto cs = wr(SendOpcode::kCompareSwap, 8, 8, 64);
  cs.compare_add = 42;
  cs.swap = 7;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, cs));
  ASSERT_EQ(wait_for(*a_, 1).at(0).status, WcStatus::kSuccess);
  std::memcpy(&v, read(*b_, 64, 8).data(), 8);
  EXPECT_EQ(v, 7U);
}

TEST_F(DevicePair, MessagesAcrossThePsnWrapComplete) {
  build(1024, 0xfffff0, 0xfffffa);
  const auto data = pattern(40000, 3);
  fill(*a_, 0, data);
  post_recv(*b_, 0, 65536, 1);
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kSend, 0, 40000, 0)));
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kRead, 1 << 20, 40000, 0, 2)));
  auto c = wait_for(*a_, 2);
  ASSERT_EQ(c.size(), 2U);
  EXPECT_EQ(c[0].status, WcStatus::kSuccess);
  EXPECT_EQ(c[1].status, WcStatus::kSuccess);
  EXPECT_EQ(read(*b_, 0, 40000), data);
  EXPECT_EQ(read(*a_, 1 << 20, 40000), data);
  EXPECT_EQ(a_->dev.qp(a_->qpn)->next_psn, wire::psn_add(0xfffff0, 40 + 40));
}

TEST_F(DevicePair, RecoversFromSeededLossReorderDuplicationAndCorruption) {
  for (uint64_t seed : {1ULL, 2ULL, 3ULL}) {
    build(1024, 5, 9);
    fabric_ = std::make_unique<LoopbackFabric>(a_->dev, b_->dev, seed);
    fabric_->set_impairment({.drop = 0.05, .duplicate = 0.03, .reorder = 0.05, .corrupt = 0.02});
    std::vector<std::vector<uint8_t>> blocks;
    for (int i = 0; i < 8; ++i) {
      blocks.push_back(pattern(30000 + i * 1000, static_cast<uint32_t>(seed * 100 + i)));
      fill(*a_, i * 65536, blocks.back());
      const auto op = i % 3 == 0 ? SendOpcode::kSend : SendOpcode::kWrite;
      if (op == SendOpcode::kSend) post_recv(*b_, i * 65536, 65536, i);
      ASSERT_TRUE(a_->dev.post_send(
          a_->qpn, wr(op, i * 65536, static_cast<uint32_t>(blocks.back().size()), i * 65536, i)));
    }
    auto c = wait_for(*a_, 8);
    ASSERT_EQ(c.size(), 8U) << "seed " << seed;
    for (size_t i = 0; i < c.size(); ++i) {
      EXPECT_EQ(c[i].status, WcStatus::kSuccess) << "seed " << seed << " wr " << i;
      EXPECT_EQ(c[i].wr_id, i) << "completions in posting order";
    }
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(read(*b_, i * 65536, blocks[i].size()), blocks[i]) << "seed " << seed;
    // The impairments really happened and were recovered from.
    EXPECT_GT(a_->dev.counters().completer_retry_err, 0U);
    EXPECT_GT(b_->dev.counters().icrc_errors + a_->dev.counters().icrc_errors, 0U);
    EXPECT_GT(b_->dev.counters().duplicate_request, 0U);
  }
}

TEST_F(DevicePair, RnrNakThenSuccessOnceAReceiveIsPosted) {
  fill(*a_, 0, pattern(100, 1));
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kSend, 0, 100, 0)));
  fabric_->run_until([&] { return a_->dev.counters().rcvd_rnr_err >= 2; }, 1'000'000'000);
  EXPECT_GE(b_->dev.counters().send_rnr_err, 2U);
  post_recv(*b_, 0, 100, 5);
  auto c = wait_for(*a_, 1);
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].status, WcStatus::kSuccess);
}

TEST_F(DevicePair, RetryExhaustionCompletesWithRetryExceeded) {
  build(1024, 0, 0, /*retry_cnt=*/3);
  fabric_->filter = [](int from, const std::vector<uint8_t>&) { return from == 1; };  // B is mute
  fill(*a_, 0, pattern(10, 1));
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, wr(SendOpcode::kWrite, 0, 10, 0)));
  const uint64_t start = fabric_->now();
  auto c = wait_for(*a_, 1);
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].status, WcStatus::kRetryExceededError);
  // 1 transmission + 3 retries, each after 4.096 us x 2^14 = 67.1 ms (MR-RT-01, MR-RT-06).
  EXPECT_EQ(a_->dev.counters().sent_pkts, 4U);
  EXPECT_GE(fabric_->now() - start, 4 * 67'108'864ULL);
  EXPECT_EQ(a_->dev.qp(a_->qpn)->attr.state, QpState::kError);
}

TEST_F(DevicePair, BadRkeyDrawsRemoteAccessErrorAndBothSidesStop) {
  auto w = wr(SendOpcode::kWrite, 0, 10, 0);
  w.rkey ^= 0x5a5a;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, w));
  auto c = wait_for(*a_, 1);
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].status, WcStatus::kRemoteAccessError);
  EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kError);
  EXPECT_EQ(a_->dev.qp(a_->qpn)->attr.state, QpState::kError);
}

// The harness's tester QP takes the QPN the DUT was pointed at; a taken or reserved one is
// refused rather than shared.
TEST(Device, CreateQpTakesAChosenQpnAndRefusesATakenOrReservedOne) {
  Device dev(config(1));
  const uint32_t pd = *dev.memory().alloc_pd();
  const uint32_t cq = *dev.create_cq(16);
  QpInitAttributes init;
  init.pd = pd;
  init.send_cq = init.recv_cq = cq;
  init.qpn = 0x123456;
  auto qpn = dev.create_qp(init);
  ASSERT_TRUE(qpn);
  EXPECT_EQ(*qpn, 0x123456U);
  EXPECT_FALSE(dev.create_qp(init));
  for (uint32_t reserved : {0U, 1U, 0xffffffU, 0x1000000U}) {
    init.qpn = reserved;
    EXPECT_FALSE(dev.create_qp(init)) << reserved;
  }
}

}  // namespace
}  // namespace mr::transport
