// Two reference devices in extension mode (spec Part II) back to back on a virtual clock:
// negotiation, RDMA WRITE placed out of order, SEND and WRITE with immediate completing in
// message order, RNR per packet, SACK-driven selective retransmission under
// seeded loss and reordering (against base go-back-N on the same link and seed), and the
// fatal NAK of a bad R_Key. Memory and completions are checked in every case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "reference/transport/device.h"
#include "reference/transport/read_responses.h"
#include "reference/transport/testing/loopback_fabric.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/ecn.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"

namespace mr::transport {
namespace {

using testing::Impairment;
using testing::LoopbackFabric;

constexpr uint64_t kMrSize = 1 << 20;
constexpr uint32_t kMessage = 256 * 1024;  // 256 packets at MTU 1024

struct Endpoint {
  Device dev;
  uint32_t pd = 0;
  uint32_t cq = 0;
  uint32_t qpn = 0;
  memory::MrInfo mr;
  explicit Endpoint(const DeviceConfig& c) : dev(c) {}
};

DeviceConfig config(int host, bool ext) {
  DeviceConfig c;
  c.mac = *wire::MacAddress::parse(host == 1 ? "02:00:00:00:00:01" : "02:00:00:00:00:02");
  c.ip = *wire::Ipv4Address::parse(host == 1 ? "198.18.0.1" : "198.18.0.2");
  c.seed = static_cast<uint64_t>(host) * 31;
  if (ext) c.mxcap = wire::Mxcap{};
  return c;
}

class ExtPair : public ::testing::Test {
 protected:
  void build(bool ext_a, bool ext_b, uint64_t seed = 4242) {
    build_with(config(1, ext_a), config(2, ext_b), seed);
  }
  // Both devices offer extension mode, each with `both` applied to its config.
  void build_both(const std::function<void(DeviceConfig&)>& both) {
    DeviceConfig ca = config(1, true), cb = config(2, true);
    both(ca);
    both(cb);
    build_with(ca, cb);
  }
  void build_with(const DeviceConfig& ca, const DeviceConfig& cb, uint64_t seed = 4242) {
    a_ = std::make_unique<Endpoint>(ca);
    b_ = std::make_unique<Endpoint>(cb);
    for (Endpoint* e : {a_.get(), b_.get()}) {
      e->pd = *e->dev.memory().alloc_pd();
      e->cq = *e->dev.create_cq(4096);
      QpInitAttributes init;
      init.pd = e->pd;
      init.send_cq = init.recv_cq = e->cq;
      e->qpn = *e->dev.create_qp(init);
      e->mr = *e->dev.memory().reg_mr(e->pd, kMrSize, memory::kLocalWrite | memory::kRemoteWrite,
                                      e == a_.get() ? 0x10000000 : 0x20000000);
    }
    connect(*a_, *b_, 0xffff80, 0x100, ipv6_);  // a's PSNs wrap 2^24 mid-transfer
    connect(*b_, *a_, 0x100, 0xffff80, ipv6_);
    fabric_ = std::make_unique<LoopbackFabric>(a_->dev, b_->dev, seed);
  }

  // Over IPv6 (each device's first further address) when `ipv6`.
  static void connect(Endpoint& self, Endpoint& peer, uint32_t my_psn, uint32_t peer_psn,
                      bool ipv6) {
    QpAttributes attr;
    attr.state = QpState::kInit;
    attr.access_flags = kQpRemoteWrite;
    ASSERT_TRUE(self.dev.modify_qp(self.qpn, attr, kAttrState | kAttrPkey | kAttrAccessFlags));
    attr.state = QpState::kRtr;
    attr.path_mtu = 1024;
    attr.av.smac = self.dev.config().mac;
    attr.av.dmac = peer.dev.config().mac;
    attr.av.sip = self.dev.config().ip;
    attr.av.dip = peer.dev.config().ip;
    if (ipv6) {
      attr.av.sip = self.dev.config().ipv6.at(0);
      attr.av.dip = peer.dev.config().ipv6.at(0);
      attr.av.flow_label = 0x12345;
    }
    attr.av.udp_sport = 0xc000 + (self.qpn & 0x3fff);
    attr.dest_qpn = peer.qpn;
    attr.rq_psn = peer_psn;
    attr.peer_mxcap = peer.dev.config().mxcap;  // what the CM exchange would carry
    const auto rtr =
        self.dev.modify_qp(self.qpn, attr,
                           kAttrState | kAttrPathMtu | kAttrAddress | kAttrDestQpn | kAttrRqPsn |
                               kAttrMaxDestRdAtomic | kAttrMinRnrTimer | kAttrPeerMxcap);
    ASSERT_TRUE(rtr) << rtr.error().message;
    attr.state = QpState::kRts;
    attr.sq_psn = my_psn;
    const auto rts = self.dev.modify_qp(
        self.qpn, attr,
        kAttrState | kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxRdAtomic);
    ASSERT_TRUE(rts) << rts.error().message;
  }

  std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
    std::vector<uint8_t> v(n);
    std::mt19937 g(seed);
    for (auto& x : v) x = static_cast<uint8_t>(g());
    return v;
  }

  SendWr write(uint32_t len, uint32_t rkey) {
    SendWr w;
    w.wr_id = 9;
    w.opcode = SendOpcode::kWrite;
    w.sg_list = {Sge{a_->mr.va, len, a_->mr.lkey}};
    w.remote_addr = b_->mr.va + 4096;
    w.rkey = rkey;
    return w;
  }

  // Posts a WRITE of kMessage bytes and runs until a's completion; its completions.
  std::vector<Completion> write_through(uint32_t rkey) {
    data_ = pattern(kMessage, 7);
    EXPECT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va, data_));
    EXPECT_TRUE(a_->dev.post_send(a_->qpn, write(kMessage, rkey)));
    return completions(*a_, 1);
  }

  // Runs until `e`'s CQ has given `n` completions or `max_ns` passes; what it gave.
  std::vector<Completion> completions(Endpoint& e, size_t n, uint64_t max_ns = 60'000'000'000ULL) {
    std::vector<Completion> got;
    fabric_->run_until(
        [&] {
          auto c = *e.dev.poll_cq(e.cq, 16);
          got.insert(got.end(), c.begin(), c.end());
          return got.size() >= n;
        },
        max_ns);
    return got;
  }

  // A region of b that a may read, holding `bytes`; b's QP allows remote READ.
  memory::MrInfo readable_region(const std::vector<uint8_t>& bytes) {
    QpAttributes attr;
    attr.access_flags = kQpRemoteWrite | kQpRemoteRead;
    EXPECT_TRUE(b_->dev.modify_qp(b_->qpn, attr, kAttrAccessFlags));
    const memory::MrInfo mr =
        *b_->dev.memory().reg_mr(b_->pd, bytes.size(), memory::kRemoteRead, 0x30000000);
    EXPECT_TRUE(b_->dev.memory().write(mr.lkey, mr.va, bytes));
    return mr;
  }

  std::vector<uint8_t> placed() {
    return *b_->dev.memory().read(b_->mr.lkey, b_->mr.va + 4096, kMessage);
  }

  // Request frames a sent (first transmissions and retransmissions).
  size_t frames_sent_by_a() const {
    size_t n = 0;
    for (const auto& [to, frame] : fabric_->trace) n += to == 1 ? 1 : 0;
    return n;
  }

  std::unique_ptr<Endpoint> a_, b_;
  std::unique_ptr<LoopbackFabric> fabric_;
  bool ipv6_ = false;  // build() connects over IPv6
  std::vector<uint8_t> data_;
};

TEST_F(ExtPair, ExtModeOnlyWhenBothEndsOfferIt) {
  build(true, true);
  EXPECT_NE(a_->dev.qp(a_->qpn)->ext, nullptr);
  EXPECT_NE(b_->dev.qp(b_->qpn)->ext, nullptr);
  build(true, false);
  EXPECT_EQ(a_->dev.qp(a_->qpn)->ext, nullptr) << "the peer offered no MXCAP";
  EXPECT_EQ(b_->dev.qp(b_->qpn)->ext, nullptr);
}

TEST_F(ExtPair, WriteOnACleanLinkIsExtOnTheWireAndNeedsNoRetransmission) {
  build(true, true);
  auto done = write_through(b_->mr.rkey);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  EXPECT_EQ(a_->dev.counters().ext_retransmitted, 0U);
  EXPECT_EQ(frames_sent_by_a(), kMessage / 1024);
  // Every request carries TVer 1, an MXH with MSN 1 and its offset, and the message's RETH.
  uint32_t expected_offset = 0;
  for (const auto& [to, frame] : fabric_->trace) {
    auto decoded = wire::decode_frame(frame);
    ASSERT_TRUE(decoded);
    const auto& p = std::get<wire::DecodedRoce>(*decoded).packet;
    EXPECT_EQ(p.bth.version, wire::kExtVersion);
    if (to == 0) {
      EXPECT_TRUE(p.sacketh.has_value()) << "an Ext ACK carries a SACKETH";
      EXPECT_EQ(wire::dscp_of(p), 46U) << "MR-TR-15: V_TR_CTRL_DSCP";
      continue;
    }
    EXPECT_EQ(wire::dscp_of(p), 0U) << "data keeps the address vector's traffic class";
    ASSERT_TRUE(p.mxh && p.reth);
    EXPECT_EQ(p.mxh->msn, 1U);
    EXPECT_EQ(p.mxh->offset, expected_offset);
    EXPECT_EQ(p.reth->dlen, kMessage);
    expected_offset += 1024;
  }
}

// Selective retransmission: under the same loss, reordering and seed, Ext sends far fewer
// frames than base go-back-N, and the memory is right either way.
TEST_F(ExtPair, LossAndReorderingCostExtOnlyTheLostPackets) {
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    const Impairment lossy{.drop = 0.03, .reorder = 0.1};
    build(true, true, seed);
    fabric_->set_impairment(lossy);
    auto ext_done = write_through(b_->mr.rkey);
    ASSERT_EQ(ext_done.size(), 1U) << "seed " << seed;
    EXPECT_EQ(ext_done[0].status, WcStatus::kSuccess) << "seed " << seed;
    EXPECT_EQ(placed(), data_) << "seed " << seed;
    const size_t ext_frames = frames_sent_by_a();
    const uint64_t retransmitted = a_->dev.counters().ext_retransmitted;
    EXPECT_GT(retransmitted, 0U) << "seed " << seed << ": no loss hit the transfer";

    build(false, false, seed);
    fabric_->set_impairment(lossy);
    auto base_done = write_through(b_->mr.rkey);
    ASSERT_EQ(base_done.size(), 1U) << "seed " << seed;
    EXPECT_EQ(placed(), data_) << "seed " << seed;
    const size_t base_frames = frames_sent_by_a();
    EXPECT_LT(ext_frames, base_frames) << "seed " << seed;
    std::printf("seed %llu: Ext sent %zu frames (%llu again), base go-back-N %zu\n",
                static_cast<unsigned long long>(seed), ext_frames,
                static_cast<unsigned long long>(retransmitted), base_frames);
  }
}

TEST_F(ExtPair, ABadRkeyOnAnyPacketNaksAndFailsTheWrite) {
  build(true, true);
  auto done = write_through(b_->mr.rkey ^ 0x5a5a);
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done[0].status, WcStatus::kRemoteAccessError);
  EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kError);  // MR-NK-07
  EXPECT_EQ(a_->dev.qp(a_->qpn)->attr.state, QpState::kError);
}

// Receive completions follow message order (MR-OO-04, MR-OO-05), each WQE serving its
// RQSN (MR-OO-06), however the packets are lost and reordered.
TEST_F(ExtPair, SendsAndWritesWithImmediateCompleteInMessageOrderUnderLoss) {
  for (uint64_t seed : {11, 12, 13}) {
    build(true, true, seed);
    fabric_->set_impairment({.drop = 0.05, .reorder = 0.2});
    const auto data = pattern(16 * 1024, 3);
    ASSERT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va, data));
    for (uint64_t id : {101, 102, 103}) {
      const uint64_t at = b_->mr.va + 0x40000 + (id - 101) * 0x10000;
      ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{id, {Sge{at, 0x10000, b_->mr.lkey}}}));
    }
    SendWr send = write(5000, 0);
    send.opcode = SendOpcode::kSend;
    SendWr write_imm = write(3000, b_->mr.rkey);
    write_imm.opcode = SendOpcode::kWriteWithImm;
    write_imm.imm_data = 0xabc;
    SendWr small = write(10, 0);
    small.opcode = SendOpcode::kSendWithImm;
    small.imm_data = 0x5150;
    for (const SendWr& w : {send, write_imm, small}) ASSERT_TRUE(a_->dev.post_send(a_->qpn, w));
    std::vector<Completion> sent, received;
    fabric_->run_until([&] {
      auto s = *a_->dev.poll_cq(a_->cq, 16);
      auto r = *b_->dev.poll_cq(b_->cq, 16);
      sent.insert(sent.end(), s.begin(), s.end());
      received.insert(received.end(), r.begin(), r.end());
      return sent.size() == 3 && received.size() == 3;
    });
    ASSERT_EQ(sent.size(), 3U) << "seed " << seed;
    ASSERT_EQ(received.size(), 3U) << "seed " << seed;
    EXPECT_EQ(received[0].wr_id, 101U);
    EXPECT_EQ(received[0].opcode, WcOpcode::kRecv);
    EXPECT_EQ(received[0].byte_len, 5000U);
    EXPECT_EQ(received[1].wr_id, 102U);
    EXPECT_EQ(received[1].opcode, WcOpcode::kRecvRdmaWithImm);
    EXPECT_EQ(received[1].imm_data, 0xabcU);
    EXPECT_EQ(received[2].wr_id, 103U);
    EXPECT_EQ(received[2].imm_data, 0x5150U);
    EXPECT_EQ(received[2].byte_len, 10U);
    for (const auto& c : received) EXPECT_EQ(c.status, WcStatus::kSuccess) << "seed " << seed;
    const auto first = *b_->dev.memory().read(b_->mr.lkey, b_->mr.va + 0x40000, 5000);
    EXPECT_EQ(first, std::vector<uint8_t>(data.begin(), data.begin() + 5000)) << "seed " << seed;
    const auto written = *b_->dev.memory().read(b_->mr.lkey, b_->mr.va + 4096, 3000);
    EXPECT_EQ(written, std::vector<uint8_t>(data.begin(), data.begin() + 3000));
  }
}

// MR-OO-11, MR-OO-12: a SEND without a receive WQE is RNR NAKed, not recorded, and goes
// again after the RNR delay until a WQE is there; then it completes once.
TEST_F(ExtPair, ASendWithoutAReceiveWqeWaitsOutRnrThenCompletesOnce) {
  build(true, true);
  SendWr send = write(100, 0);
  send.opcode = SendOpcode::kSend;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  fabric_->run_until([&] { return b_->dev.counters().send_rnr_err >= 2; });
  EXPECT_GE(a_->dev.counters().rcvd_rnr_err, 1U);
  EXPECT_TRUE(a_->dev.poll_cq(a_->cq, 4)->empty()) << "nothing completes while RNR";
  ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{7, {Sge{b_->mr.va, 4096, b_->mr.lkey}}}));
  const std::vector<Completion> received = completions(*b_, 1);
  ASSERT_EQ(received.size(), 1U);
  EXPECT_EQ(received[0].wr_id, 7U);
  auto sent = *a_->dev.poll_cq(a_->cq, 4);
  fabric_->run_until([&] {
    auto more = *a_->dev.poll_cq(a_->cq, 4);
    sent.insert(sent.end(), more.begin(), more.end());
    return !sent.empty();
  });
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].status, WcStatus::kSuccess);
}

// Section 24: a SEND with invalidate, its IETH on its last packet (table 19.1), completes at
// the receiver in MSN order with the key it named invalidated (MR-MP-09): a WRITE with that
// key afterwards fails. Under loss and reordering, so that its last packet may come first.
TEST_F(ExtPair, ASendWithInvalidateInvalidatesTheKeyWhenItCompletes) {
  build(true, true, /*seed=*/21);
  fabric_->set_impairment({.drop = 0.05, .reorder = 0.2});
  const memory::MrInfo doomed = *b_->dev.memory().reg_mr(
      b_->pd, 4096, memory::kLocalWrite | memory::kRemoteWrite, 0x50000000);
  ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{31, {Sge{b_->mr.va, 0x10000, b_->mr.lkey}}}));
  SendWr send = write(9000, 0);
  send.opcode = SendOpcode::kSendWithInv;
  send.invalidate_rkey = doomed.rkey;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  const std::vector<Completion> received = completions(*b_, 1);
  ASSERT_FALSE(received.empty());
  EXPECT_EQ(received[0].wr_id, 31U);
  EXPECT_EQ(received[0].status, WcStatus::kSuccess);
  EXPECT_EQ(received[0].byte_len, 9000U);
  EXPECT_EQ(received[0].invalidated_rkey, doomed.rkey);
  fabric_->set_impairment({});
  SendWr late = write(64, doomed.rkey);
  late.remote_addr = doomed.va;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, late));
  const std::vector<Completion> sent = completions(*a_, 2);
  ASSERT_GE(sent.size(), 2U);
  EXPECT_EQ(sent[0].status, WcStatus::kSuccess);
  EXPECT_EQ(sent[1].status, WcStatus::kRemoteAccessError) << "the key was invalidated";
}

// Section 21.3 and MR-OO-07: a READ of 256 packets, its PSNs wrapping 2^24, under seeded loss
// and reordering (requests, responses and ACKs alike) places every response at its offset
// across two gather entries, reissues only what is missing, and completes once, in posting
// order behind a WRITE.
// What a trimming switch does (spec section 23): the frame cut to 128 bytes of IP packet, its
// DSCP the trim mark, its IPv4 and UDP lengths rewritten or left as they were.
void trim(std::vector<uint8_t>& frame, uint8_t dscp, bool rewrite_lengths) {
  constexpr size_t kIp = 14;
  constexpr size_t kIpBytes = 128;
  frame.resize(kIp + kIpBytes);
  frame[kIp + 1] = static_cast<uint8_t>(dscp << 2 | (frame[kIp + 1] & 3));
  if (!rewrite_lengths) return;
  frame[kIp + 2] = 0;
  frame[kIp + 3] = kIpBytes;
  frame[kIp + 20 + 4] = 0;
  frame[kIp + 20 + 5] = kIpBytes - 20;
}

DeviceConfig trimming_config(int host) {
  DeviceConfig c = config(host, true);
  c.mxcap->features = c.mxcap->features | wire::kMxcapTrim;
  return c;
}

// MR-TR-10, MR-TR-11, MR-TR-03, MR-TR-05, MR-TR-13: one WRITE packet cut in the fabric draws
// one NAK (0x65, or 0x66 for the last-hop mark) with TRM = 1 and the packet's EV echoed, and
// the sender sends that PSN again, and only it; the memory is right.
TEST_F(ExtPair, ATrimmedPacketDrawsATrimNakAndIsSentAgainAlone) {
  for (const bool last_hop : {false, true}) {
    for (const bool rewrite : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "last hop " << last_hop << ", lengths " << rewrite);
      build_with(trimming_config(1), trimming_config(2));
      std::optional<uint32_t> cut_psn;
      uint16_t cut_ev = 0;
      int requests = 0;
      fabric_->filter = [&](int from, std::vector<uint8_t>& frame) {
        if (from != 0 || ++requests != 10) return false;
        const auto d = wire::decode_frame(frame);
        const auto& p = std::get<wire::DecodedRoce>(*d).packet;
        cut_psn = p.bth.psn;
        cut_ev = p.mxh->ev;
        trim(frame, last_hop ? 11 : 10, rewrite);
        return false;
      };
      auto done = write_through(b_->mr.rkey);
      ASSERT_EQ(done.size(), 1U);
      EXPECT_EQ(done[0].status, WcStatus::kSuccess);
      EXPECT_EQ(placed(), data_);
      EXPECT_EQ(b_->dev.counters().ext_trimmed_received, 1U);
      EXPECT_EQ(b_->dev.counters().ext_trim_naks_sent, 1U);
      EXPECT_EQ(b_->dev.counters().icrc_errors, 0U);
      ASSERT_TRUE(cut_psn);
      int naks = 0;
      std::map<uint32_t, int> sends;  // PSN -> request frames
      for (const auto& [to, frame] : fabric_->trace) {
        const auto d = wire::decode_frame(frame);
        if (!d || !std::get<wire::DecodedRoce>(*d).icrc_ok()) continue;  // the cut frame
        const auto& p = std::get<wire::DecodedRoce>(*d).packet;
        if (to == 1) {
          // Sent again: the cut PSN once, by the NAK; another only as a tail-loss probe (AR,
          // the receiver's ACK delay outlasting the probe timeout), never because of the NAK.
          if (++sends[p.bth.psn] > 1 && p.bth.psn != *cut_psn) EXPECT_EQ(p.mxh->ar, 1U);
          continue;
        }
        if (!wire::is_nak(p.aeth->syndrome.value())) continue;
        ++naks;
        EXPECT_EQ(p.aeth->syndrome, last_hop ? wire::kNakTrimmedLastHop : wire::kNakTrimmed);
        EXPECT_EQ(p.bth.psn, *cut_psn);
        EXPECT_EQ(p.sacketh->trm, 1U);
        EXPECT_EQ(p.sacketh->ev_echo, cut_ev);
      }
      EXPECT_EQ(naks, 1);
      // The NAK's retransmission (the cut frame is not counted), and at most one more by early
      // loss: an ACK the receiver sent before that retransmission arrived still shows the hole.
      EXPECT_GE(sends[*cut_psn], 1);
      EXPECT_LE(sends[*cut_psn], 2);
    }
  }
}

// MR-TR-12: a whole packet that a switch re-marked without cutting it (its ICRC intact: the
// DSCP is masked out of it) is placed as any other, and the ACK it triggers says TRM = 1.
TEST_F(ExtPair, AWholePacketWithATrimMarkIsPlacedAndItsAckSaysTrm) {
  build_with(trimming_config(1), trimming_config(2));
  int requests = 0;
  fabric_->filter = [&](int from, std::vector<uint8_t>& frame) {
    if (from == 0 && ++requests == 8) frame[15] = static_cast<uint8_t>(10 << 2 | (frame[15] & 3));
    return false;
  };
  auto done = write_through(b_->mr.rkey);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  EXPECT_EQ(b_->dev.counters().ext_trimmed_received, 0U);
  EXPECT_EQ(a_->dev.counters().ext_retransmitted, 0U);
  int trm_acks = 0;
  for (const auto& [to, frame] : fabric_->trace) {
    if (to != 0) continue;
    const auto d = wire::decode_frame(frame);
    ASSERT_TRUE(d);
    trm_acks += std::get<wire::DecodedRoce>(*d).packet.sacketh->trm.value();
  }
  EXPECT_EQ(trm_acks, 1);  // the 8th packet is an ACK's trigger (N_EXT_ACK_EVERY = 8)
}

// MR-TR-08: a QP that did not agree TRIM reads a cut packet as a bad one (its ICRC), sends no
// trim NAK, and SACK brings the PSN back.
TEST_F(ExtPair, WithoutTrimAgreedACutPacketIsDroppedAndRecoveredBySack) {
  build_with(trimming_config(1), config(2, true));
  int requests = 0;
  fabric_->filter = [&](int from, std::vector<uint8_t>& frame) {
    if (from == 0 && ++requests == 10) trim(frame, 10, /*rewrite_lengths=*/true);
    return false;
  };
  auto done = write_through(b_->mr.rkey);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  EXPECT_EQ(b_->dev.counters().ext_trim_naks_sent, 0U);
  EXPECT_EQ(b_->dev.counters().icrc_errors, 1U);
  EXPECT_GE(a_->dev.counters().ext_retransmitted, 1U);
}

// MR-TR-17: a READ response cut in the fabric draws no NAK; the requester reissues the READ
// from its first missing response, and every byte arrives.
TEST_F(ExtPair, ATrimmedReadResponseReissuesTheRead) {
  build_with(trimming_config(1), trimming_config(2));
  const auto source = pattern(kMessage, 17);
  const memory::MrInfo readable = readable_region(source);
  int responses = 0;
  fabric_->filter = [&](int from, std::vector<uint8_t>& frame) {
    if (from == 1 && ++responses == 20) trim(frame, 10, /*rewrite_lengths=*/false);
    return false;
  };
  SendWr r;
  r.wr_id = 2;
  r.opcode = SendOpcode::kRead;
  r.sg_list = {Sge{a_->mr.va, kMessage, a_->mr.lkey}};
  r.remote_addr = readable.va;
  r.rkey = readable.rkey;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
  const std::vector<Completion> got = completions(*a_, 1);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0].status, WcStatus::kSuccess);
  EXPECT_EQ(*a_->dev.memory().read(a_->mr.lkey, a_->mr.va, kMessage), source);
  EXPECT_EQ(a_->dev.counters().ext_trimmed_received, 1U);
  EXPECT_EQ(a_->dev.counters().ext_trim_naks_sent, 0U);
  EXPECT_EQ(a_->dev.counters().ext_retransmitted, 1U);  // one reissue
}

TEST_F(ExtPair, ReadsCompleteWithEveryByteUnderLossAndReordering) {
  for (uint64_t seed : {1, 2, 3}) {
    build(true, true, seed);
    // Seed 1 is a clean link: nothing may go twice.
    fabric_->set_impairment(seed == 1 ? Impairment{} : Impairment{.drop = 0.03, .reorder = 0.1});
    // b's readable region holds the source; a reads it into its own region, after a WRITE.
    const auto source = pattern(kMessage, 11 + static_cast<uint32_t>(seed));
    const memory::MrInfo readable = readable_region(source);
    const auto small = pattern(4096, 5);
    ASSERT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va + kMessage, small));
    SendWr w = write(4096, b_->mr.rkey);
    w.wr_id = 1;
    w.sg_list = {Sge{a_->mr.va + kMessage, 4096, a_->mr.lkey}};
    w.remote_addr = b_->mr.va + kMessage;
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, w));
    SendWr r;
    r.wr_id = 2;
    r.opcode = SendOpcode::kRead;
    r.sg_list = {Sge{a_->mr.va, kMessage / 2, a_->mr.lkey},
                 Sge{a_->mr.va + kMessage / 2, kMessage / 2, a_->mr.lkey}};
    r.remote_addr = readable.va;
    r.rkey = readable.rkey;
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
    const std::vector<Completion> got = completions(*a_, 2);
    ASSERT_GE(got.size(), 2u) << "seed " << seed;
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].wr_id, 1u);  // posting order
    EXPECT_EQ(got[1].wr_id, 2u);
    EXPECT_EQ(got[1].status, WcStatus::kSuccess);
    EXPECT_EQ(got[1].opcode, WcOpcode::kRdmaRead);
    EXPECT_EQ(*a_->dev.memory().read(a_->mr.lkey, a_->mr.va, kMessage), source) << "seed " << seed;
    EXPECT_EQ(*b_->dev.memory().read(b_->mr.lkey, b_->mr.va + kMessage, 4096), small);
    // Nothing more completes once the run settles (MR-OO-08).
    fabric_->run_until([] { return false; }, 100'000'000);
    EXPECT_TRUE(a_->dev.poll_cq(a_->cq, 16)->empty());
    if (seed == 1) EXPECT_EQ(a_->dev.counters().ext_retransmitted, 0u);
  }
}

// MR-OO-10 with a READ that overtakes the WRITE before it: it waits for the WRITE's PSNs,
// and its responses carry MXH offsets from the READ's first PSN (MR-OO-14).
TEST_F(ExtPair, AReadThatOvertakesAnEarlierWriteRunsAfterIt) {
  build(true, true);
  const auto source = pattern(8192, 3);
  const memory::MrInfo readable = readable_region(source);
  // Hold a's WRITE packets back until the READ request has gone to b.
  bool read_sent = false;
  int responses = 0;
  std::vector<std::vector<uint8_t>> held;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (from != 0) {
      if (p.bth.opcode >= wire::kOpRcRdmaReadResponseFirst &&
          p.bth.opcode <= wire::kOpRcRdmaReadResponseOnly)
        ++responses;
      return false;
    }
    if (p.bth.opcode == wire::kOpRcRdmaReadRequest) {
      read_sent = true;
      return false;
    }
    if (!read_sent) {
      held.push_back(frame);
      return true;
    }
    return false;
  };
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, write(2048, b_->mr.rkey)));
  SendWr r;
  r.wr_id = 3;
  r.opcode = SendOpcode::kRead;
  r.sg_list = {Sge{a_->mr.va + 65536, 8192, a_->mr.lkey}};
  r.remote_addr = readable.va;
  r.rkey = readable.rkey;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
  a_->dev.advance(fabric_->now());
  fabric_->run_until([&] { return read_sent; }, 1'000'000);
  ASSERT_EQ(held.size(), 2u);
  fabric_->run_until([] { return false; }, 5'000);  // the READ reaches b alone
  // Its ACK request is answered at once (MR-SA-20); the READ itself waits.
  EXPECT_EQ(responses, 0) << "b ran the READ too early";
  fabric_->filter = nullptr;
  for (const auto& f : held) b_->dev.receive(f, fabric_->now());
  const std::vector<Completion> got = completions(*a_, 2);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[1].wr_id, 3u);
  EXPECT_EQ(*a_->dev.memory().read(a_->mr.lkey, a_->mr.va + 65536, 8192), source);
}

// ATOMICs on Ext QPs (sections 19.1, 24): a FETCH_ADD that overtakes the WRITE before it
// waits for the WRITE's PSNs (MR-OO-10); its ATOMIC_ACKNOWLEDGE, lost once, is asked for
// again with RETX = 1 and answered with the saved value, not by running it twice (MR-AT-04);
// a COMPARE_SWAP after it sees its result; both return the original value (MR-AT-01/02)
// and complete in posting order.
TEST_F(ExtPair, AtomicsRunOnceInPsnOrderAndReturnTheOriginalValue) {
  build(true, true);
  QpAttributes attr;
  attr.access_flags = kQpRemoteWrite | kQpRemoteAtomic;
  ASSERT_TRUE(b_->dev.modify_qp(b_->qpn, attr, kAttrAccessFlags));
  const memory::MrInfo counter =
      *b_->dev.memory().reg_mr(b_->pd, 64, memory::kLocalWrite | memory::kRemoteAtomic, 0x40000000);
  const auto value_at_b = [&] {
    uint64_t v = 0;
    const auto bytes = *b_->dev.memory().read(counter.lkey, counter.va, 8);
    std::memcpy(&v, bytes.data(), 8);
    return v;
  };
  const uint64_t initial = 40;
  ASSERT_TRUE(
      b_->dev.memory().write(counter.lkey, counter.va,
                             std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(&initial),
                                                  reinterpret_cast<const uint8_t*>(&initial) + 8)));
  bool atomic_sent = false;
  bool dropped_ack = false;
  size_t atomic_acks = 0;
  std::vector<std::vector<uint8_t>> held;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (from == 1) {
      if (p.bth.opcode != wire::kOpRcAtomicAcknowledge) return false;
      ++atomic_acks;
      EXPECT_TRUE(p.atomic_ack_eth && p.sacketh) << "table 19.1";
      EXPECT_EQ(wire::dscp_of(p), 46U) << "MR-TR-15";
      if (dropped_ack) return false;
      dropped_ack = true;
      return true;
    }
    if (p.bth.opcode == wire::kOpRcFetchAdd) {
      EXPECT_TRUE(p.mxh && p.atomic_eth) << "table 19.1";
      atomic_sent = true;
      return false;
    }
    if (!atomic_sent) {
      held.push_back(frame);
      return true;
    }
    return false;
  };
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, write(2048, b_->mr.rkey)));
  SendWr add;
  add.wr_id = 5;
  add.opcode = SendOpcode::kFetchAdd;
  add.sg_list = {Sge{a_->mr.va + 65536, 8, a_->mr.lkey}};
  add.remote_addr = counter.va;
  add.rkey = counter.rkey;
  add.compare_add = 2;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, add));
  SendWr cas = add;
  cas.wr_id = 6;
  cas.opcode = SendOpcode::kCompareSwap;
  cas.sg_list = {Sge{a_->mr.va + 65544, 8, a_->mr.lkey}};
  cas.compare_add = 42;  // what the FETCH_ADD leaves, if it ran once
  cas.swap = 7;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, cas));
  a_->dev.advance(fabric_->now());
  fabric_->run_until([&] { return atomic_sent; }, 1'000'000);
  ASSERT_EQ(held.size(), 2u);
  fabric_->run_until([] { return false; }, 5'000);  // the FETCH_ADD reaches b alone
  EXPECT_EQ(value_at_b(), initial) << "b ran the FETCH_ADD before the WRITE's PSNs";
  for (const auto& f : held) b_->dev.receive(f, fabric_->now());
  const std::vector<Completion> got = completions(*a_, 3);
  ASSERT_GE(got.size(), 3u);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1].wr_id, 5u);
  EXPECT_EQ(got[2].wr_id, 6u);
  for (const Completion& c : got) EXPECT_EQ(c.status, WcStatus::kSuccess) << c.wr_id;
  const auto originals = *a_->dev.memory().read(a_->mr.lkey, a_->mr.va + 65536, 16);
  uint64_t fetched = 0, compared = 0;
  std::memcpy(&fetched, originals.data(), 8);
  std::memcpy(&compared, originals.data() + 8, 8);
  EXPECT_EQ(fetched, initial);
  EXPECT_EQ(compared, initial + 2);
  EXPECT_EQ(value_at_b(), 7u) << "the FETCH_ADD ran once, so the COMPARE_SWAP matched";
  EXPECT_TRUE(dropped_ack);
  EXPECT_GE(atomic_acks, 3u) << "the lost one, its repeat, the COMPARE_SWAP's";
  EXPECT_GE(b_->dev.counters().duplicate_request, 1u);
}

// MR-AT-05: an ATOMIC to a QP without remote-atomic access draws NAK 0x61 (the work request
// fails with remote invalid request), to a region without it NAK 0x62 (remote access
// error); either way the Ext QP enters Error (MR-NK-07).
TEST_F(ExtPair, AnAtomicWithoutRemoteAtomicAccessNaksAndFails) {
  for (const bool qp_allows : {false, true}) {
    build(true, true);
    if (qp_allows) {
      QpAttributes attr;
      attr.access_flags = kQpRemoteWrite | kQpRemoteAtomic;
      ASSERT_TRUE(b_->dev.modify_qp(b_->qpn, attr, kAttrAccessFlags));
    }
    SendWr add;
    add.wr_id = 8;
    add.opcode = SendOpcode::kFetchAdd;
    add.sg_list = {Sge{a_->mr.va, 8, a_->mr.lkey}};
    add.remote_addr = b_->mr.va;  // b's region allows remote write only
    add.rkey = b_->mr.rkey;
    add.compare_add = 1;
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, add));
    const std::vector<Completion> got = completions(*a_, 1);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0].status,
              qp_allows ? WcStatus::kRemoteAccessError : WcStatus::kRemoteInvalidRequestError);
    EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kError);
  }
}

// MR-SA-11's budget covers READs: a responder whose READ responses never arrive fails the
// READ with retry-exceeded after N_EXT_RETRY + 1 timeouts, and the QP enters Error, instead
// of reissuing it for ever.
TEST_F(ExtPair, AReadWhoseResponsesNeverArriveFailsWithRetryExceeded) {
  build(true, true);
  const memory::MrInfo readable = readable_region(pattern(8192, 1));
  size_t requests = 0;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (from == 0 && p.bth.opcode == wire::kOpRcRdmaReadRequest) ++requests;
    return from == 1 && is_read_response(p.bth.opcode);
  };
  SendWr r;
  r.wr_id = 3;
  r.opcode = SendOpcode::kRead;
  r.sg_list = {Sge{a_->mr.va, 8192, a_->mr.lkey}};
  r.remote_addr = readable.va;
  r.rkey = readable.rkey;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
  const std::vector<Completion> got = completions(*a_, 1);
  ASSERT_EQ(got.size(), 1u) << "the READ was reissued for ever: " << requests << " requests";
  EXPECT_EQ(got[0].status, WcStatus::kRetryExceededError);
  EXPECT_EQ(a_->dev.qp(a_->qpn)->attr.state, QpState::kError);
  EXPECT_EQ(requests, size_t{ext::ExtSenderParameters{}.retry_limit} + 1)
      << "the first issue and one reissue per timeout within the budget";
}

// MR-RD-12 on an Ext QP: with max_rd_atomic 1, a READ leaves only when the one before it has
// every response in; on a clean link the responder has sent all of them by then.
TEST_F(ExtPair, AnExtRequesterKeepsToMaxRdAtomic) {
  build(true, true);
  QpAttributes attr;
  attr.max_rd_atomic = 1;
  ASSERT_TRUE(a_->dev.modify_qp(a_->qpn, attr, kAttrMaxRdAtomic));
  const memory::MrInfo readable = readable_region(pattern(8192, 2));
  size_t responses = 0;
  std::vector<size_t> responses_at_request;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (from == 1 && is_read_response(p.bth.opcode)) ++responses;
    if (from == 0 && p.bth.opcode == wire::kOpRcRdmaReadRequest)
      responses_at_request.push_back(responses);
    return false;
  };
  for (uint64_t i = 0; i < 3; ++i) {
    SendWr r;
    r.wr_id = i;
    r.opcode = SendOpcode::kRead;
    r.sg_list = {Sge{a_->mr.va + i * 8192, 8192, a_->mr.lkey}};
    r.remote_addr = readable.va;
    r.rkey = readable.rkey;
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
  }
  const std::vector<Completion> got = completions(*a_, 3);
  ASSERT_EQ(got.size(), 3u);
  for (const Completion& c : got) EXPECT_EQ(c.status, WcStatus::kSuccess);
  EXPECT_EQ(responses_at_request, (std::vector<size_t>{0, 8, 16}));
}

// A receive WQE an Ext QP has bound to an RQSN (a SEND's first packets arrived, its last did
// not) is flushed with the ones still queued when the QP enters Error, in posting order:
// none is lost.
TEST_F(ExtPair, AnExtQpInErrorFlushesTheReceiveWqesItHadBound) {
  build(true, true);
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    return from == 0 && p.mxh && p.mxh->offset >= 2048;  // the SEND's third packet on
  };
  for (uint64_t id : {41, 42})
    ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{id, {Sge{b_->mr.va, 0x10000, b_->mr.lkey}}}));
  SendWr send = write(4096, 0);
  send.opcode = SendOpcode::kSend;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  fabric_->run_until([] { return false; }, 20'000);
  ASSERT_FALSE(b_->dev.qp(b_->qpn)->ext->wqes.empty()) << "the SEND bound a WQE";
  QpAttributes attr;
  attr.state = QpState::kError;
  ASSERT_TRUE(b_->dev.modify_qp(b_->qpn, attr, kAttrState));
  const auto flushed = *b_->dev.poll_cq(b_->cq, 16);
  ASSERT_EQ(flushed.size(), 2u);
  EXPECT_EQ(flushed[0].wr_id, 41u);
  EXPECT_EQ(flushed[1].wr_id, 42u);
  for (const Completion& c : flushed) EXPECT_EQ(c.status, WcStatus::kWrFlushError);
}

// A SEND with invalidate naming a key the responder cannot invalidate draws NAK 0x61 when its
// IETH arrives (Part I's rule): the sender's work request fails with remote invalid request,
// not a success followed by silence.
TEST_F(ExtPair, ASendWithInvalidateOfAnUnknownKeyNaksAtItsLastPacket) {
  build(true, true);
  ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{31, {Sge{b_->mr.va, 0x10000, b_->mr.lkey}}}));
  SendWr send = write(3000, 0);
  send.opcode = SendOpcode::kSendWithInv;
  send.invalidate_rkey = 0x7777;  // names nothing at b
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  const std::vector<Completion> got = completions(*a_, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, WcStatus::kRemoteInvalidRequestError);
  EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kError);
  const auto at_b = *b_->dev.poll_cq(b_->cq, 16);
  ASSERT_EQ(at_b.size(), 1u);
  EXPECT_EQ(at_b[0].wr_id, 31u);
  EXPECT_NE(at_b[0].status, WcStatus::kSuccess);
}

DeviceConfig nonfatal_config(int host, bool credit = false) {
  DeviceConfig c = config(host, true);
  c.mxcap->features2 = wire::kMxcapNonFatal | wire::kMxcapResync;
  if (credit) c.mxcap->features = c.mxcap->features | wire::kMxcapCredit;
  return c;
}

// Section 22.1 with NONFATAL, under seeded loss and reordering (seed 1: a clean link): a WRITE
// with a bad R_Key and a READ of a region that does not allow it fail alone, in posting order,
// with the status their NAK (0x69) names; the requester covers each failed message with a
// RESYNC (code 1, END on the one that reaches its last PSN) and sends none of its PSNs as
// data after it; both QPs stay in RTS, and the WRITEs around them place every byte. Seed 3
// runs with receiver credits: a RESYNC costs none (section 26.7), so the sender has spent
// exactly what its data packets cost, and nothing stays pending.
TEST_F(ExtPair, WithNonfatalABadRkeyFailsOnlyItsOperationAndTheQpCarriesOn) {
  for (uint64_t seed : {1, 2, 3}) {
    const bool credit = seed == 3;
    build_with(nonfatal_config(1, credit), nonfatal_config(2, credit), seed);
    fabric_->set_impairment(seed == 1 ? Impairment{} : Impairment{.drop = 0.05, .reorder = 0.2});
    // In the order a sent them. Every RESYNC's first transmission is lost: its PSNs time out
    // into a RESYNC again (MR-NF-13), not into data.
    std::vector<std::vector<uint8_t>> sent_by_a;
    size_t resyncs_again = 0;
    fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
      if (from != 0) return false;
      sent_by_a.push_back(frame);
      const auto d = wire::decode_frame(frame);
      const auto& p = std::get<wire::DecodedRoce>(*d).packet;
      if (p.bth.opcode != wire::kOpExtResync) return false;
      resyncs_again += p.mxh->retx;
      return p.mxh->retx == 0;
    };
    const memory::MrInfo readable = readable_region(pattern(4096, 3));
    const memory::MrInfo unreadable =
        *b_->dev.memory().reg_mr(b_->pd, 4096, memory::kRemoteWrite, 0x60000000);
    data_ = pattern(16384, 8);
    ASSERT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va, data_));
    const auto post_write = [&](uint64_t id, uint32_t rkey, uint64_t at) {
      SendWr w = write(4096, rkey);
      w.wr_id = id;
      w.sg_list = {Sge{a_->mr.va + at, 4096, a_->mr.lkey}};
      w.remote_addr = b_->mr.va + at;
      ASSERT_TRUE(a_->dev.post_send(a_->qpn, w));
    };
    post_write(1, b_->mr.rkey, 0);
    post_write(2, b_->mr.rkey ^ 0x5a5a, 4096);  // names no region of b
    SendWr r;
    r.wr_id = 3;
    r.opcode = SendOpcode::kRead;
    r.sg_list = {Sge{a_->mr.va + 65536, 4096, a_->mr.lkey}};
    r.remote_addr = unreadable.va;
    r.rkey = unreadable.rkey;
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
    post_write(4, b_->mr.rkey, 8192);
    r.wr_id = 5;
    r.remote_addr = readable.va;
    r.rkey = readable.rkey;
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
    const std::vector<Completion> got = completions(*a_, 5);
    ASSERT_EQ(got.size(), 5u) << "seed " << seed;
    const WcStatus expected[] = {WcStatus::kSuccess, WcStatus::kRemoteAccessError,
                                 WcStatus::kRemoteAccessError, WcStatus::kSuccess,
                                 WcStatus::kSuccess};
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].wr_id, i + 1) << "posting order, seed " << seed;
      EXPECT_EQ(got[i].status, expected[i]) << "wr " << got[i].wr_id << ", seed " << seed;
    }
    EXPECT_EQ(a_->dev.qp(a_->qpn)->attr.state, QpState::kRts);
    EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kRts);
    const auto at_b = *b_->dev.memory().read(b_->mr.lkey, b_->mr.va, 12288);
    EXPECT_TRUE(std::equal(data_.begin(), data_.begin() + 4096, at_b.begin()));
    EXPECT_TRUE(std::all_of(at_b.begin() + 4096, at_b.begin() + 8192, [](uint8_t x) {
      return x == 0;
    })) << "nothing of the failed WRITE is placed";
    EXPECT_TRUE(std::equal(data_.begin() + 8192, data_.begin() + 12288, at_b.begin() + 8192));
    EXPECT_EQ(*a_->dev.memory().read(a_->mr.lkey, a_->mr.va + 65536, 4096), pattern(4096, 3));
    // The wire: NAKs 0x69 only, RESYNCs of code 1 that end their message, no data after them.
    size_t op_naks = 0;
    for (const auto& [to, frame] : fabric_->trace) {
      const auto d = wire::decode_frame(frame);
      const auto& p = std::get<wire::DecodedRoce>(*d).packet;
      if (to == 0 && p.aeth && wire::is_nak(p.aeth->syndrome.value())) {
        EXPECT_EQ(p.aeth->syndrome.value(), wire::kNakOpRemoteAccess) << "seed " << seed;
        ++op_naks;
      }
    }
    std::set<uint32_t> resynced_msns;
    uint16_t data_cost = 0;  // credit units, modulo 2^16 as the sender counts them
    for (const auto& frame : sent_by_a) {
      const auto d = wire::decode_frame(frame);
      const auto& p = std::get<wire::DecodedRoce>(*d).packet;
      if (p.bth.opcode != wire::kOpExtResync)
        data_cost = static_cast<uint16_t>(
            data_cost + ext::credit_cost(static_cast<uint32_t>(p.payload.size())));
      if (p.bth.opcode == wire::kOpExtResync) {
        ASSERT_TRUE(p.rsyneth && p.mxh);
        EXPECT_EQ(p.rsyneth->code.value(), 1u);
        if (p.rsyneth->end) resynced_msns.insert(p.mxh->msn);
        continue;
      }
      EXPECT_FALSE(p.mxh && resynced_msns.contains(p.mxh->msn))
          << "a PSN of failed message " << p.mxh->msn << " went as data after its RESYNC, seed "
          << seed;
    }
    EXPECT_EQ(resynced_msns, (std::set<uint32_t>{2, 3})) << "seed " << seed;
    EXPECT_GE(op_naks, 2u);
    EXPECT_GE(resyncs_again, 2u);
    if (credit) {
      const ext::ExtQpState& ext = *a_->dev.qp(a_->qpn)->ext;
      EXPECT_EQ(ext.credit_tx->spent(), data_cost) << "a RESYNC was charged credit";
      EXPECT_EQ(ext.unsent_credit_bytes, 0u) << "Pending still counts PSNs a RESYNC covered";
    }
  }
}

// Section 22.1 for a SEND: one longer than its receive WQE draws NAK 0x68; the sender's work
// request completes with remote invalid request, the receive WQE with an error (MR-NF-04),
// and the next SEND lands in the next WQE (RQSN binding intact).
TEST_F(ExtPair, WithNonfatalASendLongerThanItsWqeFailsAtBothEndsAndTheNextOneLands) {
  build_with(nonfatal_config(1), nonfatal_config(2));
  ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{51, {Sge{b_->mr.va, 16, b_->mr.lkey}}}));
  ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{52, {Sge{b_->mr.va + 4096, 8192, b_->mr.lkey}}}));
  data_ = pattern(3000, 4);
  ASSERT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va, data_));
  SendWr send = write(3000, 0);
  send.opcode = SendOpcode::kSend;
  send.wr_id = 1;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  send.wr_id = 2;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  const std::vector<Completion> sent = completions(*a_, 2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].status, WcStatus::kRemoteInvalidRequestError);
  EXPECT_EQ(sent[1].status, WcStatus::kSuccess);
  const std::vector<Completion> received = completions(*b_, 2);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].wr_id, 51u);
  EXPECT_EQ(received[0].status, WcStatus::kRemoteOperationError);
  EXPECT_EQ(received[1].wr_id, 52u);
  EXPECT_EQ(received[1].status, WcStatus::kSuccess);
  EXPECT_EQ(received[1].byte_len, 3000u);
  EXPECT_EQ(*b_->dev.memory().read(b_->mr.lkey, b_->mr.va + 4096, 3000), data_);
  EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kRts);
}

// MR-NF-12 and MR-NF-10's window rule, from crafted RESYNCs: count 0 is silently discarded;
// a range reaching beyond the window draws NAK 0x67 with the RESYNC's PSN; a RESYNC of PSNs
// already received is answered by an ACK with ARA = 1 and DUP = 1 and changes nothing.
TEST_F(ExtPair, AResyncIsCheckedAgainstTheWindow) {
  build_with(nonfatal_config(1), nonfatal_config(2));
  ASSERT_EQ(write_through(b_->mr.rkey).size(), 1U);
  const auto decoded = wire::decode_frame(fabric_->trace.front().second);
  ASSERT_TRUE(decoded);
  const auto& first = std::get<wire::DecodedRoce>(*decoded);
  const uint32_t cumulative = b_->dev.qp(b_->qpn)->ext->window.cumulative();
  const auto resync = [&](uint32_t psn, uint16_t count) {
    wire::RocePacket p = first.packet;
    p.bth.opcode = wire::kOpExtResync;
    p.bth.psn = psn;
    p.reth.reset();
    p.payload = {};
    p.rsyneth = wire::Rsyneth{.code = 1, .end = 1U, .count = count};
    const size_t before = b_->dev.take_outbox().size();
    EXPECT_EQ(before, 0u);
    b_->dev.receive(wire::build_frame(p), fabric_->now());
    b_->dev.advance(fabric_->now() + 1'000'000);
    return b_->dev.take_outbox();
  };
  EXPECT_TRUE(resync(wire::psn_add(cumulative, 1), 0).empty()) << "count 0: discarded";
  const auto beyond = resync(wire::psn_add(cumulative, 1), 0xffff);
  ASSERT_EQ(beyond.size(), 1u);
  const auto nak_frame = wire::decode_frame(beyond[0]);
  const auto& nak = std::get<wire::DecodedRoce>(*nak_frame).packet;
  EXPECT_EQ(nak.aeth->syndrome.value(), wire::kNakPsnOutOfWindow);
  EXPECT_EQ(nak.bth.psn, wire::psn_add(cumulative, 1));
  const auto old = resync(wire::psn_add(cumulative, 0xffffff - 3), 4);  // the last 4 received
  ASSERT_EQ(old.size(), 1u);
  const auto ack_frame = wire::decode_frame(old[0]);
  const auto& ack = std::get<wire::DecodedRoce>(*ack_frame).packet;
  EXPECT_TRUE(wire::is_ack(ack.aeth->syndrome.value()));
  EXPECT_EQ(ack.sacketh->ara, 1u);
  EXPECT_EQ(ack.sacketh->dup, 1u);
  EXPECT_EQ(ack.bth.psn, cumulative) << "nothing moved";
  EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kRts);
}

// Section 22.2 at the requester (MR-NF-08, MR-NF-09): a PSN NAKed 0x6B goes again after
// T_NF_RESOURCE_DELAY doubled with each NAK in a row, never sooner (no timeout, no probe, no
// early repair meanwhile), and the N_NF_RESOURCE_RETRY-th NAK gives its message up: a RESYNC
// of code 3, the work request completes with remote operational error, the next one lands.
TEST_F(ExtPair, ANak0x6BDelaysThePsnDoublingAndTheLastOneGivesItsMessageUp) {
  build_with(nonfatal_config(1), nonfatal_config(2));
  ASSERT_EQ(write_through(b_->mr.rkey).size(), 1U);  // an RTT sample, and an ACK to copy
  std::vector<uint8_t> ack_frame;
  for (const auto& [to, frame] : fabric_->trace)
    if (to == 0) ack_frame = frame;
  ASSERT_FALSE(ack_frame.empty());
  // The next work request: a SEND of one packet, which b never sees, so that b's receive WQE
  // is bound by nothing but the RESYNC (MR-NF-11).
  const uint32_t x = a_->dev.qp(a_->qpn)->next_psn;
  std::vector<uint64_t> sent_at;
  std::vector<uint8_t> resync_codes;
  bool owe_nak = false;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    if (from != 0) return false;
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (p.bth.opcode == wire::kOpExtResync) {
      resync_codes.push_back(p.rsyneth->code);
      return false;
    }
    if (p.bth.psn != x) return false;
    sent_at.push_back(fabric_->now());
    owe_nak = true;
    return true;  // b never sees it; the test answers for b
  };
  for (uint64_t id : {61, 62})
    ASSERT_TRUE(b_->dev.post_recv(b_->qpn, RecvWr{id, {Sge{b_->mr.va, 4096, b_->mr.lkey}}}));
  SendWr send = write(1024, 0);
  send.opcode = SendOpcode::kSend;
  send.wr_id = 1;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  std::vector<uint64_t> naked_at;
  for (int i = 0; i < 20; ++i) {
    if (!fabric_->run_until([&] { return owe_nak; }, 100'000'000)) break;
    owe_nak = false;
    const auto d = wire::decode_frame(ack_frame);
    wire::RocePacket nak = std::get<wire::DecodedRoce>(*d).packet;
    nak.bth.psn = x;
    nak.aeth->syndrome = wire::kNakResource;
    naked_at.push_back(fabric_->now());
    a_->dev.receive(wire::build_frame(nak), fabric_->now());
  }
  const std::vector<Completion> got = completions(*a_, 1);
  ASSERT_EQ(got.size(), 1u) << naked_at.size() << " NAKs, " << sent_at.size() << " sent, "
                            << a_->dev.counters().ext_retransmitted << " retransmitted";
  EXPECT_EQ(got[0].status, WcStatus::kRemoteOperationError);
  // b completes the WQE the given-up SEND would have used, bound by nothing but the RESYNC.
  const std::vector<Completion> failed_at_b = completions(*b_, 1);
  ASSERT_EQ(failed_at_b.size(), 1u) << "the given-up SEND's receive WQE never completed";
  EXPECT_EQ(failed_at_b[0].wr_id, 61u);
  EXPECT_EQ(failed_at_b[0].status, WcStatus::kRemoteAbortError) << "RESYNC code 3 (22.3)";
  send.wr_id = 2;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, send));
  const std::vector<Completion> next = completions(*a_, 1);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].status, WcStatus::kSuccess);
  const std::vector<Completion> landed_at_b = completions(*b_, 1);
  ASSERT_EQ(landed_at_b.size(), 1u);
  EXPECT_EQ(landed_at_b[0].wr_id, 62u);
  EXPECT_EQ(landed_at_b[0].status, WcStatus::kSuccess);
  const uint32_t n = ext::ExtQpParameters{}.resource_retry;
  ASSERT_EQ(naked_at.size(), n);
  std::string times;
  for (uint64_t t : sent_at) times += " " + std::to_string(t);
  times += " /";
  for (uint64_t t : naked_at) times += " " + std::to_string(t);
  ASSERT_EQ(sent_at.size(), n) << "the first transmission and one after each NAK but the last"
                               << times;
  for (uint32_t k = 1; k < n; ++k) {
    const uint64_t delay = ext::ExtQpParameters{}.resource_delay_ns << (k - 1);
    EXPECT_GE(sent_at[k] - naked_at[k - 1], delay) << "NAK " << k;
    EXPECT_LE(sent_at[k] - naked_at[k - 1], delay + 1'000) << "NAK " << k;
  }
  EXPECT_EQ(resync_codes, (std::vector<uint8_t>{3}));
  EXPECT_EQ(a_->dev.qp(a_->qpn)->attr.state, QpState::kRts);
  EXPECT_EQ(a_->dev.qp(a_->qpn)->ext->evs.counters().ev_assumed_bad, 0u)
      << "a NAK 0x6B is no path failure (MR-NF-09)";
}

// Section 22.2, MR-NF-07: a receiver with four message contexts and a hole before them
// refuses every further message ahead of its cumulative PSN, with NAK 0x6B when NONFATAL is
// agreed (the sender backs off and sends it again) and silently without (the sender's RTO
// does). Either way nothing refused is recorded or placed early, every WRITE lands once
// the hole is filled, and both QPs stay in RTS.
TEST_F(ExtPair, AReceiverOutOfMessageContextsRefusesNewMessagesAndTheyLandLater) {
  for (const bool nonfatal : {true, false}) {
    SCOPED_TRACE(nonfatal ? "NONFATAL" : "without NONFATAL");
    DeviceConfig cb = nonfatal ? nonfatal_config(2) : config(2, true);
    cb.ext.message_contexts = 4;
    build_with(nonfatal ? nonfatal_config(1) : config(1, true), cb);
    constexpr uint32_t kWrites = 32;
    const std::vector<uint8_t> bytes = pattern(kWrites * 8, 5);
    ASSERT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va, bytes));
    const uint32_t first = a_->dev.qp(a_->qpn)->next_psn;
    size_t resource_naks = 0;
    bool dropped = false;
    fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
      const auto d = wire::decode_frame(frame);
      const auto& p = std::get<wire::DecodedRoce>(*d).packet;
      if (from == 1 && p.aeth && p.aeth->syndrome == wire::kNakResource) ++resource_naks;
      if (from != 0 || dropped || p.bth.psn != first) return false;
      dropped = true;  // the hole: the first WRITE's first transmission
      return true;
    };
    for (uint32_t i = 0; i < kWrites; ++i) {
      SendWr w = write(8, b_->mr.rkey);
      w.wr_id = i;
      w.sg_list = {Sge{a_->mr.va + i * 8, 8, a_->mr.lkey}};
      w.remote_addr = b_->mr.va + 4096 + i * 8;
      ASSERT_TRUE(a_->dev.post_send(a_->qpn, w));
    }
    const std::vector<Completion> got = completions(*a_, kWrites);
    ASSERT_EQ(got.size(), kWrites);
    for (const Completion& c : got) EXPECT_EQ(c.status, WcStatus::kSuccess) << c.wr_id;
    EXPECT_EQ(*b_->dev.memory().read(b_->mr.lkey, b_->mr.va + 4096, kWrites * 8), bytes);
    EXPECT_GT(b_->dev.counters().ext_resource_refused, 0u);
    EXPECT_EQ(resource_naks > 0, nonfatal) << resource_naks << " NAKs 0x6B";
    EXPECT_EQ(a_->dev.qp(a_->qpn)->attr.state, QpState::kRts);
    EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kRts);
  }
}

// MR-NF-08 for a READ: a READ request NAKed 0x6B is asked again after T_NF_RESOURCE_DELAY,
// not sooner: neither its PSNs' RTOs nor the READ's own timer reissue it during the wait.
TEST_F(ExtPair, AReadNakedWith0x6BIsReissuedOnlyAfterTheDelay) {
  build_with(nonfatal_config(1), nonfatal_config(2));
  ASSERT_EQ(write_through(b_->mr.rkey).size(), 1U);  // an RTT sample: the RTO is ~50 us
  std::vector<uint8_t> ack_frame;
  for (const auto& [to, frame] : fabric_->trace)
    if (to == 0) ack_frame = frame;
  const memory::MrInfo readable = readable_region(pattern(8192, 6));
  std::vector<uint64_t> requests;  // when a sent the READ request
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    if (from != 0) return false;
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (p.bth.opcode != wire::kOpRcRdmaReadRequest) return false;
    requests.push_back(fabric_->now());
    return requests.size() == 1;  // the first is "refused" by the NAK below
  };
  SendWr r;
  r.wr_id = 7;
  r.opcode = SendOpcode::kRead;
  r.sg_list = {Sge{a_->mr.va, 8192, a_->mr.lkey}};
  r.remote_addr = readable.va;
  r.rkey = readable.rkey;
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
  ASSERT_TRUE(fabric_->run_until([&] { return !requests.empty(); }, 1'000'000));
  const auto d = wire::decode_frame(ack_frame);
  wire::RocePacket nak = std::get<wire::DecodedRoce>(*d).packet;
  nak.bth.psn = a_->dev.qp(a_->qpn)->sq.front().first_psn;
  nak.aeth->syndrome = wire::kNakResource;
  const uint64_t naked_at = fabric_->now();
  a_->dev.receive(wire::build_frame(nak), naked_at);
  const std::vector<Completion> got = completions(*a_, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, WcStatus::kSuccess);
  EXPECT_EQ(*a_->dev.memory().read(a_->mr.lkey, a_->mr.va, 8192), pattern(8192, 6));
  ASSERT_EQ(requests.size(), 2u) << "reissued during the wait";
  EXPECT_GE(requests[1] - naked_at, ext::ExtQpParameters{}.resource_delay_ns);
  EXPECT_LE(requests[1] - naked_at, ext::ExtQpParameters{}.resource_delay_ns + 1'000);
}

// Section 26.7: messages of one packet, each posted after the last completed, leave Pending
// 0 behind them, so the receiver never learns of the next: after the unsolicited allowance
// the sender waits out T_CR_TIMEOUT + T_CR_GRANT_DELAY + SRTT and sends the next one beyond
// its limit, whose Pending is its demand. Every READ completes.
TEST_F(ExtPair, WithCreditsOnePacketAtATimeNeverStallsForGood) {
  build_both([&](DeviceConfig& c) {
    c.mxcap->features = c.mxcap->features | wire::kMxcapCredit;
    c.ext.credit.unsolicited = 4096;  // 16 units: 16 READ requests
  });
  const auto source = pattern(64, 5);
  const memory::MrInfo readable = readable_region(source);
  for (uint64_t k = 0; k < 40; ++k) {
    SendWr r;
    r.wr_id = k;
    r.opcode = SendOpcode::kRead;
    r.sg_list = {Sge{a_->mr.va + 64 * k, 64, a_->mr.lkey}};
    r.remote_addr = readable.va;
    r.rkey = readable.rkey;
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, r));
    const std::vector<Completion> got = completions(*a_, 1, 10'000'000);
    ASSERT_FALSE(got.empty()) << "READ " << k << " waits forever for credit";
    EXPECT_EQ(got[0].status, WcStatus::kSuccess);
  }
  EXPECT_GT(a_->dev.counters().ext_credit_waits, 0U);
}

// PROBE and RESYNC for an Ext QP that agreed neither (this reference never does) are silently
// discarded (MR-NF-12): no NAK, the QP stays in RTS and carries on.
TEST_F(ExtPair, AProbeOrResyncForAnExtQpIsDiscardedNotRefused) {
  build(true, true);
  ASSERT_EQ(write_through(b_->mr.rkey).size(), 1U);
  const auto decoded = wire::decode_frame(fabric_->trace.front().second);
  ASSERT_TRUE(decoded);
  const uint64_t acks_before = b_->dev.counters().ext_acks_sent;
  for (const uint8_t opcode : {wire::kOpExtProbe, wire::kOpExtResync}) {
    wire::RocePacket p = std::get<wire::DecodedRoce>(*decoded).packet;
    p.bth.opcode = opcode;
    p.reth.reset();
    p.payload = {};
    if (opcode == wire::kOpExtResync) p.rsyneth = wire::Rsyneth{};
    b_->dev.receive(wire::build_frame(p), fabric_->now());
  }
  EXPECT_EQ(b_->dev.counters().ext_acks_sent, acks_before);
  EXPECT_EQ(b_->dev.qp(b_->qpn)->attr.state, QpState::kRts);
  EXPECT_EQ(write_through(b_->mr.rkey).size(), 1U) << "the QP carries on";
}

// Section 20 over four planes: every packet's UDP source port is its MXH EV (MR-MU-02), the
// plane it leaves on is its MXH plane (MR-MU-10), a message sprays over the whole generated
// set (MR-MU-01, MR-MU-11), and a plane whose port is down gets nothing (MR-PF-07).
TEST_F(ExtPair, MultipathSpraysTheEvSetOverEveryPlaneAndAvoidsADownPort) {
  build_both([&](DeviceConfig& c) {
    c.mxcap->features = c.mxcap->features | wire::kMxcapMultipath;
    c.planes = 4;
  });
  auto spray = [&] {
    std::map<uint16_t, int> evs;
    std::set<uint8_t> planes;
    for (const auto& [to, frame] : fabric_->trace) {
      if (to != 1) continue;
      auto d = wire::decode_frame(frame);
      const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
      if (roce == nullptr || !roce->packet.mxh) {
        ADD_FAILURE() << "a request without an MXH";
        continue;
      }
      const wire::RocePacket& p = roce->packet;
      EXPECT_EQ(p.udp.sport, p.mxh->ev);
      ++evs[p.mxh->ev];
      planes.insert(p.mxh->plane);
    }
    fabric_->trace.clear();
    return std::pair{evs, planes};
  };
  ASSERT_EQ(write_through(b_->mr.rkey).at(0).status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  const auto [evs, planes] = spray();
  EXPECT_EQ(evs.size(), 16u);  // N_EV_DEFAULT entries, round robin: 16 packets each
  for (const auto& [ev, n] : evs) EXPECT_EQ(n, 16) << ev;
  EXPECT_EQ(planes, (std::set<uint8_t>{0, 1, 2, 3}));

  a_->dev.set_plane_port(2, /*up=*/false, 0);
  ASSERT_EQ(write_through(b_->mr.rkey).at(0).status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  const auto [evs_down, planes_down] = spray();
  EXPECT_EQ(planes_down, (std::set<uint8_t>{0, 1, 3}));
  EXPECT_EQ(evs_down.size(), 12u);
}

// Section 25 with a plane black-holed in a's direction during a WRITE: its entries go
// ASSUMED_BAD and the WRITE completes on the others. With PATHPROBE (MR-PF-03, MR-PF-08,
// MR-PF-12) a sends PROBEs on them (opcode 0x18, TVer 1, no PSN consumed, MXH with the
// entry's EV and plane and MSN 0), at intervals that double while the plane stays dead; once
// it is back, b answers with PRB = 1 echoing the EV, and every entry is GOOD again long
// before T_EV_HOLDDOWN. Without PATHPROBE (MR-PF-13) no PROBE leaves and the entries wait
// out the hold-down.
TEST_F(ExtPair, AssumedBadEntriesAreProbedAndComeBackOnTheAnswer) {
  for (const bool probe : {true, false}) {
    build_both([&](DeviceConfig& c) {
      c.mxcap->features = c.mxcap->features | wire::kMxcapMultipath;
      if (probe) c.mxcap->features = c.mxcap->features | wire::kMxcapPathProbe;
      c.planes = 4;
      // No tail-loss probe: a lone packet on the dead plane is then recovered by its RTO,
      // which is what makes its entry ASSUMED_BAD (a probe would repair it on another entry).
      c.ext.sender.tlp_max_probes = 0;
    });
    bool dead = true;
    std::map<uint16_t, std::vector<uint64_t>> probes;  // by EV: when a sent one
    size_t answers = 0;
    fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
      const auto d = wire::decode_frame(frame);
      const auto& p = std::get<wire::DecodedRoce>(*d).packet;
      if (from == 1) {
        answers += p.sacketh && p.sacketh->prb ? 1 : 0;
        return false;
      }
      if (p.bth.opcode == wire::kOpExtProbe) {
        EXPECT_TRUE(p.bth.is_ext() && p.mxh && p.payload.empty());
        EXPECT_EQ(p.mxh->msn, 0u);
        EXPECT_EQ(p.udp.sport, p.mxh->ev) << "sent with its EV's encoding";
        EXPECT_EQ(p.bth.psn, a_->dev.qp(a_->qpn)->next_psn) << "a PROBE consumes no PSN";
        probes[p.mxh->ev].push_back(fabric_->now());
      }
      return dead && p.mxh && p.mxh->plane == 2;
    };
    const auto states = [&] {
      std::map<ext::EvState, int> n;
      const ext::EvTable& evs = a_->dev.qp(a_->qpn)->ext->evs;
      for (size_t i = 0; i < evs.size(); ++i) ++n[evs.state(i)];
      return n;
    };
    // One single-packet WRITE at a time, one per entry of the round robin.
    for (int i = 0; i < 16; ++i) {
      ASSERT_TRUE(a_->dev.post_send(a_->qpn, write(1024, b_->mr.rkey)));
      const std::vector<Completion> done = completions(*a_, 1);
      ASSERT_EQ(done.size(), 1u);
      ASSERT_EQ(done[0].status, WcStatus::kSuccess);
    }
    EXPECT_EQ(states()[ext::EvState::kAssumedBad], 4) << "plane 2's four entries";
    fabric_->run_until([] { return false; }, 3'000'000);  // 3 ms dead
    dead = false;
    const uint64_t back = fabric_->now();
    fabric_->run_until([] { return false; }, 4'000'000);
    if (!probe) {
      EXPECT_TRUE(probes.empty());
      EXPECT_EQ(states()[ext::EvState::kAssumedBad], 4) << "T_EV_HOLDDOWN is 10 ms";
      continue;
    }
    EXPECT_EQ(states()[ext::EvState::kGood], 16) << "the answers brought them back";
    EXPECT_GE(answers, 4u);
    ASSERT_EQ(probes.size(), 4u);
    for (const auto& [ev, times] : probes) {
      ASSERT_GE(times.size(), 3u) << ev;
      const ext::PathFailureParameters paths;
      for (size_t k = 1; k + 1 < times.size() && times[k] < back; ++k) {
        EXPECT_EQ(times[k + 1] - times[k], 2 * (times[k] - times[k - 1])) << "doubling, EV " << ev;
      }
      EXPECT_LE(times[1] - times[0], 2 * paths.probe_interval_ns);
    }
  }
}

// MR-PF-18: a plane black-holed in a's direction under a steady stream of WRITEs. Every
// packet lost on it is repaired by SACK on another entry before its RTO could expire, so no
// RTO blames the dead entries (MR-PF-01); their silence does: an RTO after the first loss on
// an entry with nothing delivered on it since, the entry goes ASSUMED_BAD and the dead plane
// carries nothing more. Entries of the live planes, which deliver, stay GOOD.
TEST_F(ExtPair, AnEntryThatDeliversNothingForAnRtoAfterASackedLossIsAssumedBad) {
  build_both([&](DeviceConfig& c) {
    c.mxcap->features = c.mxcap->features | wire::kMxcapMultipath;
    c.planes = 4;
  });
  std::vector<uint64_t> dead_plane_sends;  // when a sent a request on plane 2
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    if (from != 0) return false;
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (!p.mxh || p.mxh->plane != 2) return false;
    dead_plane_sends.push_back(fabric_->now());
    return true;
  };
  const QueuePair& qp = *a_->dev.qp(a_->qpn);
  constexpr uint32_t kPackets = 16;  // one per entry of the round robin
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(a_->dev.post_send(a_->qpn, write(kPackets * 1024, b_->mr.rkey)));
    const std::vector<Completion> done = completions(*a_, 1);
    ASSERT_EQ(done.size(), 1u);
    ASSERT_EQ(done[0].status, WcStatus::kSuccess);
  }
  EXPECT_EQ(a_->dev.counters().retry_exceeded_err, 0u);
  const ext::EvTable& evs = qp.ext->evs;
  for (size_t i = 0; i < evs.size(); ++i) {
    EXPECT_EQ(evs.state(i),
              evs.entry(i).plane == 2 ? ext::EvState::kAssumedBad : ext::EvState::kGood)
        << "entry " << i << " on plane " << int{evs.entry(i).plane};
  }
  ASSERT_FALSE(dead_plane_sends.empty());
  // Within two RTOs (T_EXT_RTO_MIN = 50 us) and an RTT of the first loss, nothing more.
  const uint64_t last = dead_plane_sends.back() - dead_plane_sends.front();
  EXPECT_LT(last, 2 * 50'000 + 10'000) << dead_plane_sends.size() << " requests on plane 2";
  EXPECT_GT(fabric_->now() - dead_plane_sends.front(), 4 * last) << "the stream went on";
}

// Section 20.2 over IPv6: in EV mode FLOW (the device's MXCAP says so) every Ext packet,
// requests and ACKs alike, carries flow label (plane << 16) | EV and UDP source port 0xC000 |
// ((FL & 0x3FFF) ^ (FL >> 14)) (MR-MU-03); in EV mode UDP the port is the EV and the flow
// label the address vector's (MR-MU-02).
TEST_F(ExtPair, EvModeFlowCarriesTheEvInTheIpv6FlowLabel) {
  for (const bool flow : {true, false}) {
    DeviceConfig ca = config(1, true), cb = config(2, true);
    ca.ipv6 = {*wire::Ipv6Address::parse("2001:db8::1")};
    cb.ipv6 = {*wire::Ipv6Address::parse("2001:db8::2")};
    for (DeviceConfig* c : {&ca, &cb}) {
      c->mxcap->features = c->mxcap->features | wire::kMxcapMultipath;
      c->mxcap->ev_mode = flow ? 1 : 0;
      c->planes = 4;
    }
    ipv6_ = true;
    build_with(ca, cb);
    ASSERT_EQ(write_through(b_->mr.rkey).at(0).status, WcStatus::kSuccess);
    EXPECT_EQ(placed(), data_);
    size_t checked = 0;
    for (const auto& [to, frame] : fabric_->trace) {
      const auto d = wire::decode_frame(frame);
      ASSERT_TRUE(d);
      const wire::RocePacket& p = std::get<wire::DecodedRoce>(*d).packet;
      const auto* v6 = std::get_if<wire::Ipv6>(&p.ip);
      ASSERT_NE(v6, nullptr);
      const uint32_t fl = v6->fl.value();
      const uint16_t folded = 0xc000 | ((fl & 0x3fff) ^ (fl >> 14));
      if (!p.mxh) {  // an ACK: its entry is its own choice, so the encoding is what is checked
        if (flow) EXPECT_EQ(p.udp.sport, folded);
        continue;
      }
      if (flow) {
        EXPECT_EQ(fl, uint32_t{p.mxh->plane} << 16 | p.mxh->ev);
        EXPECT_EQ(p.udp.sport, folded);
      } else {
        EXPECT_EQ(fl, 0x12345u);
        EXPECT_EQ(p.udp.sport, p.mxh->ev);
      }
      ++checked;
    }
    EXPECT_GE(checked, kMessage / 1024);
  }
}

// MR-PF-14: a packet that was late, not lost. Its RTO moves its entry to ASSUMED_BAD; it
// arrives just before its retransmission, which b then answers with DUP = 1 echoing the
// retransmission's EV and timestamp, and a takes the entry back to GOOD at once (no PROBE:
// PATHPROBE is off, and T_EV_HOLDDOWN is 10 ms).
TEST_F(ExtPair, ASpuriousTimeoutReturnsItsEntryToGoodOnTheDuplicateEcho) {
  build_both([&](DeviceConfig& c) {
    c.mxcap->features = c.mxcap->features | wire::kMxcapMultipath;
    c.planes = 4;
    c.ext.sender.tlp_max_probes = 0;  // the timeout, not a probe, recovers the packet
  });
  ASSERT_EQ(write_through(b_->mr.rkey).at(0).status, WcStatus::kSuccess);
  const uint32_t x = a_->dev.qp(a_->qpn)->next_psn;
  std::vector<uint8_t> late;
  size_t dup_acks = 0;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const auto d = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    if (from == 1) {
      dup_acks += p.sacketh && p.sacketh->dup ? 1 : 0;
      return false;
    }
    if (p.bth.psn != x || !p.mxh) return false;
    if (!p.mxh->retx) {
      late = frame;  // held back past the RTO
      return true;
    }
    b_->dev.receive(late, fabric_->now());  // the late copy lands first
    return false;
  };
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, write(1024, b_->mr.rkey)));
  const std::vector<Completion> done = completions(*a_, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  fabric_->run_until([] { return false; }, 100'000);
  const ext::EvTable& evs = a_->dev.qp(a_->qpn)->ext->evs;
  EXPECT_EQ(evs.counters().ev_assumed_bad, 1u);
  EXPECT_EQ(evs.counters().ev_spurious_rto, 1u);
  EXPECT_EQ(evs.good_count(), evs.size()) << "the late packet's entry is GOOD again";
  EXPECT_GE(dup_acks, 1u);
}

// The device's own record of the port each frame leaves on agrees with the MXH plane, and
// an ACK leaves on the plane of the entry its EV (UDP source port) names.
TEST_F(ExtPair, EachFrameLeavesOnThePlaneOfItsEvSetEntry) {
  build_both([&](DeviceConfig& c) {
    c.mxcap->features = c.mxcap->features | wire::kMxcapMultipath;
    c.planes = 8;
  });
  // The devices are driven by hand here, frame by frame, not through the fabric.
  Device& a = a_->dev;
  Device& b = b_->dev;
  const uint64_t now = fabric_->now();
  ASSERT_TRUE(a.post_send(a_->qpn, write(16 * 1024, b_->mr.rkey)));
  a.advance(now);
  std::vector<uint8_t> planes;
  const auto frames = a.take_outbox(planes);
  ASSERT_EQ(frames.size(), 16u);
  ASSERT_EQ(planes.size(), frames.size());
  std::set<uint8_t> used;
  for (size_t i = 0; i < frames.size(); ++i) {
    auto d = wire::decode_frame(frames[i]);
    ASSERT_TRUE(d);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    ASSERT_TRUE(p.mxh);
    EXPECT_EQ(planes[i], p.mxh->plane) << "frame " << i;
    used.insert(planes[i]);
    b.receive(frames[i], now + 1000);
  }
  EXPECT_EQ(used.size(), 8u);
  b.advance(now + 2000);
  const auto acks = b.take_outbox(planes);
  ASSERT_FALSE(acks.empty());
  const auto entries = ext::EvTable::default_set(b_->qpn, 8, 16);
  for (size_t i = 0; i < acks.size(); ++i) {
    auto d = wire::decode_frame(acks[i]);
    ASSERT_TRUE(d);
    const auto& p = std::get<wire::DecodedRoce>(*d).packet;
    ASSERT_TRUE(p.sacketh);
    const auto entry = std::find_if(entries.begin(), entries.end(),
                                    [&](const ext::EvEntry& e) { return e.ev == p.udp.sport; });
    ASSERT_NE(entry, entries.end()) << "ack " << i << " sport " << p.udp.sport;
    EXPECT_EQ(planes[i], entry->plane) << "ack " << i;
  }
}

// Section 26.7 with CREDIT agreed on both ends: the sender spends its unsolicited allowance,
// then sends only what the receiver's grants allow; every request carries its pending
// demand, every ACK the credit limit, and a raise with no ACK due leaves in a CREDIT packet.
// A receiver whose caller wakes late (a real clock) runs the timers that fell due meanwhile
// in their order: the credit grants paced 1.4 us apart leave before the ACK owed T_EXT_ACK_DELAY
// after the request, as on time. Woken once 30 us late, b sends several CREDIT packets, then
// the ACK.
TEST_F(ExtPair, AReceiverWokenLateSendsItsTimersInTheirOrder) {
  build_both([&](DeviceConfig& c) { c.mxcap->features = c.mxcap->features | wire::kMxcapCredit; });
  ASSERT_TRUE(a_->dev.post_send(a_->qpn, write(kMessage, b_->mr.rkey)));
  a_->dev.advance(fabric_->now());
  const std::vector<std::vector<uint8_t>> requests = a_->dev.take_outbox();
  ASSERT_FALSE(requests.empty());
  const uint64_t t0 = fabric_->now() + 1'000;
  b_->dev.receive(requests.front(), t0);  // the first request only: demand, and an ACK owed
  b_->dev.advance(t0);
  b_->dev.take_outbox();  // what it answers at once
  b_->dev.advance(t0 + 30'000);
  std::vector<uint8_t> opcodes;
  for (const auto& frame : b_->dev.take_outbox()) {
    const auto d = wire::decode_frame(frame);
    opcodes.push_back(std::get<wire::DecodedRoce>(*d).packet.bth.opcode);
  }
  const auto ack = std::find(opcodes.begin(), opcodes.end(), wire::kOpRcAcknowledge);
  ASSERT_NE(ack, opcodes.end()) << "the owed ACK";
  EXPECT_GE(std::count(opcodes.begin(), ack, wire::kOpExtCredit), 2) << "grants due before it";
  EXPECT_EQ(std::count(ack, opcodes.end(), wire::kOpExtCredit), 0)
      << "no grant due before the ACK leaves after it";
}

TEST_F(ExtPair, WithCreditsTheSenderSendsOnlyWhatTheReceiverGrants) {
  build_both([&](DeviceConfig& c) {
    c.mxcap->features = c.mxcap->features | wire::kMxcapCredit;
    c.ext.credit.unsolicited = 16 * 1024;  // 64 units: 16 packets of 1 KiB
    c.ext.credit.line_rate_mbps = 10'000;  // grants at 9.5 Gb/s
  });
  // MR-CR-02 when each request leaves: its cost within the newest limit a has heard, from
  // the grants delivered to a so far (the trace holds every delivered frame, in order).
  uint16_t limit = 64, spent = 0;
  size_t requests = 0, credit_packets = 0, heard = 0;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    if (from != 0) return false;
    for (; heard < fabric_->trace.size(); ++heard) {
      const auto& [to, delivered] = fabric_->trace[heard];
      if (to != 0) continue;
      const auto decoded = wire::decode_frame(delivered);
      const auto& g = std::get<wire::DecodedRoce>(*decoded).packet;
      const uint16_t grant = g.sacketh ? uint16_t{g.sacketh->credit} : uint16_t{g.creth->credit};
      if (g.sacketh) EXPECT_EQ(g.sacketh->crv, 1U) << "MR-CR-07";
      if (g.creth) ++credit_packets;
      EXPECT_EQ(wire::dscp_of(g), 46U) << "MR-TR-15";
      const auto step = static_cast<uint16_t>(grant - limit);
      if (step != 0 && step < 0x8000) limit = grant;
    }
    const auto decoded = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*decoded).packet;
    ++requests;
    spent = static_cast<uint16_t>(spent + 4);  // 1 KiB: 4 units
    EXPECT_LT(static_cast<uint16_t>(limit - spent), 0x8000) << "request " << requests;
    const uint32_t left = kMessage - static_cast<uint32_t>(requests) * 1024;
    EXPECT_EQ(p.mxh->pending, std::min<uint32_t>(255, (left + 4095) / 4096)) << "MR-CR-04";
    return false;
  };
  auto done = write_through(b_->mr.rkey);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  EXPECT_GT(b_->dev.counters().ext_credit_raises, 0U);
  EXPECT_EQ(requests, kMessage / 1024);
  EXPECT_GT(credit_packets, 0U);
}

// MR-SC-24: the loopback has no line rate, so only the pacer spreads a window. Before the
// first ACK (the RTT is 2 us) cwnd is B_CWND_INIT and base_rtt T_SC_BASE_RTT: 12.5 bytes per
// ns after a full bucket of B_SC_PACE_BURST. Unpaced, the window's 122 packets leave at once.
TEST_F(ExtPair, WithCcTheSenderPacesItsRequestsAtTheWindowPerBaseRtt) {
  build_both([&](DeviceConfig& c) { c.mxcap->features = c.mxcap->features | wire::kMxcapCc; });
  const ext::CongestionParameters cc;
  std::vector<uint64_t> sent_ns;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const auto decoded = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*decoded).packet;
    if (from == 0 && p.reth) sent_ns.push_back(fabric_->now());
    return false;
  };
  auto done = write_through(b_->mr.rkey);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(placed(), data_);
  ASSERT_EQ(sent_ns.size(), kMessage / 1024);
  const uint64_t t0 = sent_ns.front();
  for (const uint64_t d : {0, 500, 1000, 1900}) {
    const auto in_d = static_cast<uint64_t>(
        std::ranges::count_if(sent_ns, [&](uint64_t t) { return t <= t0 + d; }));
    const uint64_t allowed = cc.pace_burst + cc.cwnd_init * d / cc.base_rtt_ns;
    EXPECT_LE(in_d * 1024, allowed) << d << " ns after the first";
    EXPECT_GE(in_d * 1024 + 1024, allowed) << d << " ns: the pacer held back more than it must";
  }
}

// MR-SC-24: retransmissions of packets still in flight pass the pacer unasked, and take
// nothing from its bucket: a burst of 40 SACK repairs must not leave new data a debt to wait
// out (one left 288 us on the fabric bench). With a one-packet bucket, no paced packet ever
// waits longer than one packet's accrual.
TEST_F(ExtPair, RetransmissionsThePacerLetsPassLeaveItNoDebt) {
  build_both([&](DeviceConfig& c) {
    c.mxcap->features = c.mxcap->features | wire::kMxcapCc;
    c.ext.congestion.cwnd_min = c.ext.congestion.cwnd_init = c.ext.congestion.cwnd_max = 64 * 1024;
    c.ext.congestion.pace_burst = 1024;
  });
  // An RTT of 100 us: base_rtt stays T_SC_BASE_RTT, the window paces at 6.5 bytes per ns.
  fabric_ = std::make_unique<LoopbackFabric>(a_->dev, b_->dev, 4242, 50'000);
  std::set<uint32_t> dropped;
  uint64_t longest_wait = 0;
  fabric_->filter = [&](int from, const std::vector<uint8_t>& frame) {
    const QueuePair* qp = a_->dev.qp(a_->qpn);
    if (auto wait = qp->ext->cc->pacer_wait_ns())
      longest_wait = std::max(longest_wait, *wait - std::min(*wait, fabric_->now()));
    if (from != 0) return false;
    const auto decoded = wire::decode_frame(frame);
    const auto& p = std::get<wire::DecodedRoce>(*decoded).packet;
    const uint32_t index = (p.bth.psn - 0xffff80) & 0xffffff;
    return p.reth && index >= 10 && index < 50 && dropped.insert(p.bth.psn).second;
  };
  data_ = pattern(kMessage, 7);
  ASSERT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va, data_));
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(a_->dev.post_send(a_->qpn, write(kMessage, b_->mr.rkey)));
  const auto done = completions(*a_, 2);
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(placed(), data_);
  EXPECT_EQ(dropped.size(), 40U);
  EXPECT_GE(a_->dev.counters().ext_retransmitted, 40U);
  // 1 KiB at 64 KiB per T_SC_BASE_RTT: 157 ns.
  EXPECT_LE(longest_wait, 157U);
}

TEST_F(ExtPair, WithoutCreditAgreedNoAckCarriesCreditAndNoRequestPending) {
  DeviceConfig ca = config(1, true), cb = config(2, true);
  ca.mxcap->features = ca.mxcap->features | wire::kMxcapCredit;  // b does not offer it
  build_with(ca, cb);
  ASSERT_EQ(write_through(b_->mr.rkey).size(), 1U);
  for (const auto& [to, frame] : fabric_->trace) {
    const auto decoded = wire::decode_frame(frame);
    ASSERT_TRUE(decoded);
    const auto& p = std::get<wire::DecodedRoce>(*decoded).packet;
    if (to == 0) {
      ASSERT_TRUE(p.sacketh);  // MR-CR-01
      EXPECT_EQ(p.sacketh->crv, 0U);
      EXPECT_EQ(p.sacketh->credit, 0U);
    } else {
      EXPECT_EQ(p.mxh->pending, 0U);
    }
  }
  EXPECT_EQ(b_->dev.counters().ext_credit_raises, 0U);
}

}  // namespace
}  // namespace mr::transport
