// Two reference devices in secure mode (spec section 19.4) back to back on a virtual clock:
// the transition needs keys, every packet is sealed with a fresh PN and opened by the peer,
// and forged, replayed and plain packets are discarded unread while the transfer still
// completes. Memory and completions are checked in every case.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

#include "reference/transport/device.h"
#include "reference/transport/ext/secure_frame.h"
#include "reference/transport/testing/loopback_fabric.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/icrc.h"

namespace mr::transport {
namespace {

using testing::LoopbackFabric;

constexpr uint64_t kMrSize = 1 << 20;
constexpr uint32_t kMessage = 64 * 1024;

ext::SecurityAssociation sa(uint16_t epoch, uint8_t key_byte, uint32_t spi) {
  ext::SecurityAssociation s;
  s.epoch = epoch;
  s.key.fill(key_byte);
  s.salt = {key_byte, 1, 2, 3};
  s.spi = spi;
  return s;
}

struct Endpoint {
  Device dev;
  uint32_t pd = 0, cq = 0, qpn = 0;
  memory::MrInfo mr;
  explicit Endpoint(const DeviceConfig& c) : dev(c) {}
};

DeviceConfig config(int host) {
  DeviceConfig c;
  c.mac = *wire::MacAddress::parse(host == 1 ? "02:00:00:00:00:01" : "02:00:00:00:00:02");
  c.ip = *wire::Ipv4Address::parse(host == 1 ? "198.18.0.1" : "198.18.0.2");
  c.seed = static_cast<uint64_t>(host) * 31;
  wire::Mxcap m;
  m.features2 = m.features2 | wire::kMxcapSecure;
  c.mxcap = m;
  return c;
}

class SecurePair : public ::testing::Test {
 protected:
  // a -> b under SA epoch 1 key 0x11, b -> a under key 0x22; `with_keys` false gives none.
  void build(bool with_keys = true) {
    a_ = std::make_unique<Endpoint>(config(1));
    b_ = std::make_unique<Endpoint>(config(2));
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
    ext::SecurityAssociations ka{{sa(1, 0x11, 0x202)}, {sa(1, 0x22, 0x101)}, 0};
    ext::SecurityAssociations kb{{sa(1, 0x22, 0x101)}, {sa(1, 0x11, 0x202)}, 0};
    rtr_a_ = connect(*a_, *b_, 0x100, 0x900, with_keys ? std::optional(ka) : std::nullopt);
    rtr_b_ = connect(*b_, *a_, 0x900, 0x100, with_keys ? std::optional(kb) : std::nullopt);
    fabric_ = std::make_unique<LoopbackFabric>(a_->dev, b_->dev, 77);
  }

  static Expected<void, VerbsError> connect(Endpoint& self, Endpoint& peer, uint32_t my_psn,
                                            uint32_t peer_psn,
                                            const std::optional<ext::SecurityAssociations>& keys) {
    QpAttributes attr;
    attr.state = QpState::kInit;
    attr.access_flags = kQpRemoteWrite;
    EXPECT_TRUE(self.dev.modify_qp(self.qpn, attr, kAttrState | kAttrPkey | kAttrAccessFlags));
    attr.state = QpState::kRtr;
    attr.path_mtu = 1024;
    attr.av.smac = self.dev.config().mac;
    attr.av.dmac = peer.dev.config().mac;
    attr.av.sip = self.dev.config().ip;
    attr.av.dip = peer.dev.config().ip;
    attr.av.udp_sport = 0xc000;
    attr.dest_qpn = peer.qpn;
    attr.rq_psn = peer_psn;
    attr.peer_mxcap = peer.dev.config().mxcap;
    attr.secure_sa = keys;
    uint32_t mask = kAttrState | kAttrPathMtu | kAttrAddress | kAttrDestQpn | kAttrRqPsn |
                    kAttrMaxDestRdAtomic | kAttrMinRnrTimer | kAttrPeerMxcap;
    if (keys) mask |= kAttrSecureSa;
    if (auto rtr = self.dev.modify_qp(self.qpn, attr, mask); !rtr) return rtr;
    attr.state = QpState::kRts;
    attr.sq_psn = my_psn;
    return self.dev.modify_qp(
        self.qpn, attr,
        kAttrState | kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxRdAtomic);
  }

  // Posts a WRITE of kMessage bytes a -> b and runs until it completes; the completions.
  std::vector<Completion> write_through() {
    data_.resize(kMessage);
    std::mt19937 g(5);
    for (auto& x : data_) x = static_cast<uint8_t>(g());
    EXPECT_TRUE(a_->dev.memory().write(a_->mr.lkey, a_->mr.va, data_));
    SendWr w;
    w.wr_id = 9;
    w.opcode = SendOpcode::kWrite;
    w.sg_list = {Sge{a_->mr.va, kMessage, a_->mr.lkey}};
    w.remote_addr = b_->mr.va;
    w.rkey = b_->mr.rkey;
    EXPECT_TRUE(a_->dev.post_send(a_->qpn, w));
    std::vector<Completion> got;
    fabric_->run_until([&] {
      auto c = *a_->dev.poll_cq(a_->cq, 16);
      got.insert(got.end(), c.begin(), c.end());
      return !got.empty();
    });
    return got;
  }
  std::vector<uint8_t> placed() { return *b_->dev.memory().read(b_->mr.lkey, b_->mr.va, kMessage); }

  std::unique_ptr<Endpoint> a_, b_;
  std::unique_ptr<LoopbackFabric> fabric_;
  Expected<void, VerbsError> rtr_a_, rtr_b_;
  std::vector<uint8_t> data_;
};

wire::RocePacket decoded(const std::vector<uint8_t>& frame) {
  auto d = wire::decode_frame(frame);
  EXPECT_TRUE(d);
  return std::get<wire::DecodedRoce>(*d).packet;
}

// A frame changed on the way, with its ICRC made good again, so only the AEAD can tell.
void flip_and_fix_icrc(std::vector<uint8_t>& frame, size_t at) {
  frame[at] ^= 0x01;
  const uint32_t icrc = wire::IcrcCalculator::icrc(std::span(frame).subspan(14, frame.size() - 18));
  for (int i = 0; i < 4; ++i)
    frame[frame.size() - 4 + i] = static_cast<uint8_t>(icrc >> (24 - 8 * i));
}

TEST_F(SecurePair, WithoutSecurityAssociationsTheTransitionToRtrFails) {
  build(/*with_keys=*/false);
  ASSERT_FALSE(rtr_a_);
  EXPECT_NE(rtr_a_.error().message.find("security associations"), std::string::npos);
}

TEST_F(SecurePair, EveryPacketIsSealedWithARisingPnAndTheWriteLandsUnderLoss) {
  build();
  fabric_->set_impairment({.drop = 0.05, .reorder = 0.05});
  const auto done = write_through();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  EXPECT_GT(a_->dev.counters().ext_retransmitted, 0U);
  std::map<int, uint64_t> last_pn;  // by receiving device: each sender's PNs rise
  size_t sealed = 0;
  for (const auto& [to, frame] : fabric_->trace) {
    const wire::RocePacket p = decoded(frame);
    ASSERT_TRUE(p.bth.sx()) << "MR-SE-12";
    ASSERT_TRUE(p.sech && p.sec_tag) << "MR-SE-02";
    EXPECT_EQ(p.sech->epoch, 1U);
    EXPECT_EQ(p.sech->spi, to == 1 ? 0x202U : 0x101U);
    // The fabric reorders, so rising is checked against the highest seen only for those
    // that came in order; no PN repeats either way (retransmissions get new ones).
    EXPECT_NE(p.sech->pn.value(), last_pn[to]);
    last_pn[to] = std::max(last_pn[to], p.sech->pn.value());
    const ext::SecurityAssociation key = to == 1 ? sa(1, 0x11, 0x202) : sa(1, 0x22, 0x101);
    crypto::Aes256Gcm gcm(key.key);
    const auto at = ext::secure_layout(frame, p);
    ASSERT_TRUE(at);
    std::vector<uint8_t> plain;
    EXPECT_TRUE(ext::open_payload(frame, *at, gcm, key.salt, p.sech->pn.value(), plain));
    if (to == 1 && !p.payload.empty()) {
      const uint64_t offset = p.mxh->offset.value();
      EXPECT_TRUE(std::equal(plain.begin(), plain.begin() + 64, data_.begin() + offset));
      EXPECT_FALSE(std::equal(p.payload.begin(), p.payload.begin() + 64, data_.begin() + offset))
          << "the payload on the wire is ciphertext";
    }
    ++sealed;
  }
  EXPECT_GT(sealed, kMessage / 1024);
  EXPECT_EQ(b_->dev.counters().se_auth_fail + b_->dev.counters().se_replay, 0U);
}

TEST_F(SecurePair, ForgedReplayedAndPlainPacketsAreDiscardedUnreadAndCounted) {
  build();
  int n = 0;
  std::vector<uint8_t> replay;
  fabric_->filter = [&](int from, std::vector<uint8_t>& frame) {
    if (from != 0) return false;
    ++n;
    if (n == 3) flip_and_fix_icrc(frame, frame.size() - 30);     // in the payload
    if (n == 5) flip_and_fix_icrc(frame, 14 + 20 + 8 + 12 + 2);  // in the SECH's epoch
    if (n == 7) replay = frame;
    if (n == 9) frame = replay;  // the 7th again: its PN was seen
    return false;
  };
  const auto done = write_through();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  EXPECT_EQ(b_->dev.counters().se_auth_fail, 2U);
  EXPECT_EQ(b_->dev.counters().se_replay, 1U);
}

TEST_F(SecurePair, TheSenderMovesToTheNextEpochWhenAskedAndThePeerFollows) {
  build();
  QpAttributes attr;
  attr.secure_sa = ext::SecurityAssociations{{sa(2, 0x33, 0x303)}, {}, 0};
  ASSERT_TRUE(a_->dev.modify_qp(a_->qpn, attr, kAttrSecureSa));
  attr.secure_sa = ext::SecurityAssociations{{}, {sa(2, 0x33, 0x303)}, 0};
  ASSERT_TRUE(b_->dev.modify_qp(b_->qpn, attr, kAttrSecureSa));
  ASSERT_TRUE(a_->dev.modify_qp(a_->qpn, attr, kAttrSecureRotate));
  // Keys are never replaced: epoch 2 again is refused (its PNs and replay window stay).
  attr.secure_sa = ext::SecurityAssociations{{sa(2, 0x44, 0x303)}, {}, 0};
  const auto again = a_->dev.modify_qp(a_->qpn, attr, kAttrSecureSa);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("already installed"), std::string::npos);
  const auto done = write_through();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(placed(), data_);
  const wire::RocePacket first = decoded(fabric_->trace.front().second);
  EXPECT_EQ(first.sech->epoch, 2U);
  EXPECT_EQ(first.sech->pn, 1U);
  EXPECT_EQ(first.sech->spi, 0x303U);
}

TEST_F(SecurePair, RotationAndLateKeysAreRefusedOnAQpWithoutSecure) {
  build();
  QpInitAttributes init;
  init.pd = a_->pd;
  init.send_cq = init.recv_cq = a_->cq;
  const uint32_t qpn = *a_->dev.create_qp(init);
  QpAttributes attr;
  attr.state = QpState::kInit;
  ASSERT_TRUE(a_->dev.modify_qp(qpn, attr, kAttrState | kAttrPkey | kAttrAccessFlags));
  const auto rotate = a_->dev.modify_qp(qpn, attr, kAttrSecureRotate);
  ASSERT_FALSE(rotate);
  EXPECT_NE(rotate.error().message.find("secure_rotate"), std::string::npos);
  EXPECT_TRUE(a_->dev.modify_qp(a_->qpn, attr, kAttrSecureRotate)) << "a secure QP may rotate";
  const auto empty = a_->dev.modify_qp(qpn, attr, kAttrSecureSa);  // the mask without keys
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("secure_sa"), std::string::npos);
}

}  // namespace
}  // namespace mr::transport
