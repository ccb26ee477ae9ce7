// What the management plane does to an Ext QP's paths (spec sections 20.1 and 25.1), seen in
// the frames the device sends: the EV set given at INIT to RTR is the one the QP sprays over
// (UDP source port = EV, each frame on its entry's plane), a DENIED EV is not sent on until
// allowed, and a plane whose port is down gets nothing. Two devices back to back over four
// planes, driven by hand so that every frame's plane is read from take_outbox(planes).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "reference/transport/device.h"
#include "reference/wire/frame_decoder.h"

namespace mr::transport {
namespace {

constexpr uint8_t kPlanes = 4;
constexpr uint32_t kMtu = 1024;

// Ordered so that list order and plane order differ; planes 0 and 3 carry two EVs each.
const std::vector<ext::EvEntry> kGivenSet = {
    {.ev = 0x1001, .plane = 0}, {.ev = 0x1002, .plane = 3}, {.ev = 0x1003, .plane = 1},
    {.ev = 0x1004, .plane = 2}, {.ev = 0x1005, .plane = 3}, {.ev = 0x1006, .plane = 0}};

DeviceConfig config(int host, bool ext) {
  DeviceConfig c;
  c.mac = *wire::MacAddress::parse(host == 1 ? "02:00:00:00:00:01" : "02:00:00:00:00:02");
  c.ip = *wire::Ipv4Address::parse(host == 1 ? "198.18.0.1" : "198.18.0.2");
  c.seed = static_cast<uint64_t>(host) * 17;
  c.planes = kPlanes;
  if (ext) {
    c.mxcap = wire::Mxcap{};
    c.mxcap->features = c.mxcap->features | wire::kMxcapMultipath;
  }
  return c;
}

struct Endpoint {
  Device dev;
  uint32_t cq = 0;
  uint32_t qpn = 0;
  memory::MrInfo mr;
  Endpoint(const DeviceConfig& c, uint64_t host_va) : dev(c) {
    const uint32_t pd = *dev.memory().alloc_pd();
    cq = *dev.create_cq(256);
    QpInitAttributes init;
    init.pd = pd;
    init.send_cq = init.recv_cq = cq;
    qpn = *dev.create_qp(init);
    mr = *dev.memory().reg_mr(pd, 1 << 20, memory::kLocalWrite | memory::kRemoteWrite, host_va);
  }
};

// A request frame a sent: its UDP source port, MXH EV and plane, and the port it left on.
struct Sent {
  uint16_t sport = 0;
  uint16_t mxh_ev = 0;
  uint8_t mxh_plane = 0;
  uint8_t port = 0;
};

Expected<void, VerbsError> to_init(Endpoint& e) {
  QpAttributes attr;
  attr.state = QpState::kInit;
  attr.access_flags = kQpRemoteWrite;
  return e.dev.modify_qp(e.qpn, attr, kAttrState | kAttrPkey | kAttrAccessFlags);
}

// INIT to RTR towards `peer`, with `ev_set` when given.
Expected<void, VerbsError> to_rtr(Endpoint& self, Endpoint& peer,
                                  const std::optional<std::vector<ext::EvEntry>>& ev_set) {
  QpAttributes attr;
  attr.state = QpState::kRtr;
  attr.path_mtu = kMtu;
  attr.av.smac = self.dev.config().mac;
  attr.av.dmac = peer.dev.config().mac;
  attr.av.sip = self.dev.config().ip;
  attr.av.dip = peer.dev.config().ip;
  attr.dest_qpn = peer.qpn;
  attr.peer_mxcap = peer.dev.config().mxcap;  // what the CM exchange would carry
  attr.ev_set = ev_set;
  uint32_t mask = kAttrState | kAttrPathMtu | kAttrAddress | kAttrDestQpn | kAttrRqPsn |
                  kAttrMaxDestRdAtomic | kAttrMinRnrTimer | kAttrPeerMxcap;
  if (ev_set) mask |= kAttrEvSet;
  return self.dev.modify_qp(self.qpn, attr, mask);
}

void to_rts(Endpoint& e) {
  QpAttributes attr;
  attr.state = QpState::kRts;
  ASSERT_TRUE(e.dev.modify_qp(
      e.qpn, attr,
      kAttrState | kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxRdAtomic));
}

class EvManagement : public ::testing::Test {
 protected:
  // a sprays over `a_set` (none: its generated set) towards b, which may lack Part II.
  void connect(const std::optional<std::vector<ext::EvEntry>>& a_set, bool b_ext = true) {
    a_ = std::make_unique<Endpoint>(config(1, true), 0x10000000);
    b_ = std::make_unique<Endpoint>(config(2, b_ext), 0x20000000);
    for (Endpoint* e : {a_.get(), b_.get()}) ASSERT_TRUE(to_init(*e));
    const auto rtr = to_rtr(*a_, *b_, a_set);
    ASSERT_TRUE(rtr) << rtr.error().message;
    ASSERT_TRUE(to_rtr(*b_, *a_, std::nullopt));
    to_rts(*a_);
    to_rts(*b_);
  }

  // Posts an RDMA WRITE of `packets` MTUs from a to b and runs both devices until it
  // completes; every request frame a sent meanwhile.
  std::vector<Sent> write(uint32_t packets) {
    SendWr w;
    w.opcode = SendOpcode::kWrite;
    w.sg_list = {Sge{a_->mr.va, packets * kMtu, a_->mr.lkey}};
    w.remote_addr = b_->mr.va;
    w.rkey = b_->mr.rkey;
    EXPECT_TRUE(a_->dev.post_send(a_->qpn, w));
    std::vector<Sent> sent;
    for (int step = 0; step < 10'000; ++step) {
      now_ += 1'000;
      a_->dev.advance(now_);
      std::vector<uint8_t> ports;
      const auto frames = a_->dev.take_outbox(ports);
      for (size_t i = 0; i < frames.size(); ++i) {
        auto d = wire::decode_frame(frames[i]);
        const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
        EXPECT_TRUE(roce != nullptr && roce->packet.mxh) << "frame " << i << " is no Ext packet";
        if (roce == nullptr || !roce->packet.mxh) continue;
        const wire::RocePacket& p = roce->packet;
        sent.push_back({p.udp.sport, p.mxh->ev, p.mxh->plane, ports.at(i)});
        b_->dev.receive(frames[i], now_);
      }
      b_->dev.advance(now_);
      for (const auto& f : b_->dev.take_outbox()) a_->dev.receive(f, now_);
      const auto done = *a_->dev.poll_cq(a_->cq, 4);
      if (!done.empty()) {
        EXPECT_EQ(done.at(0).status, WcStatus::kSuccess);
        return sent;
      }
    }
    ADD_FAILURE() << "the WRITE did not complete";
    return sent;
  }

  // Each frame's UDP source port is its MXH EV, and it left on that entry's plane of the given
  // set; how many frames each EV carried.
  static std::map<uint16_t, int> evs_used(const std::vector<Sent>& sent) {
    std::map<uint16_t, uint8_t> plane_of;
    for (const ext::EvEntry& e : kGivenSet) plane_of[e.ev] = e.plane;
    std::map<uint16_t, int> used;
    for (const Sent& s : sent) {
      EXPECT_EQ(s.sport, s.mxh_ev);
      EXPECT_EQ(s.port, s.mxh_plane);
      const auto entry = plane_of.find(s.mxh_ev);
      if (entry == plane_of.end()) {
        ADD_FAILURE() << "EV " << s.mxh_ev << " is not in the given set";
        continue;
      }
      EXPECT_EQ(s.port, entry->second) << "EV " << s.mxh_ev;
      ++used[s.mxh_ev];
    }
    return used;
  }

  std::unique_ptr<Endpoint> a_;
  std::unique_ptr<Endpoint> b_;
  uint64_t now_ = 1'000'000;
};

// MR-MU-02, MR-MU-10 with a management-given set: the QP sprays over exactly that set, in
// list order, each frame on its entry's plane; query_qp reports the set with its states.
TEST_F(EvManagement, TheGivenEvSetIsWhatTheFramesCarry) {
  connect(kGivenSet);
  const auto used = evs_used(write(12));
  ASSERT_EQ(used.size(), kGivenSet.size());
  for (const auto& [ev, n] : used) EXPECT_EQ(n, 2) << "EV " << ev;
  const QpAttributes q = *a_->dev.query_qp(a_->qpn);
  EXPECT_TRUE(q.ext_mode);
  ASSERT_TRUE(q.ev_set);
  ASSERT_EQ(q.ev_set->size(), kGivenSet.size());
  for (size_t i = 0; i < kGivenSet.size(); ++i) {
    EXPECT_EQ((*q.ev_set)[i].ev, kGivenSet[i].ev);
    EXPECT_EQ((*q.ev_set)[i].plane, kGivenSet[i].plane);
    EXPECT_EQ(q.ev_states.at(i), ext::EvState::kGood);
  }
}

// Section 25.1: "management denies the EV -> stop using it", "management allows -> GOOD".
TEST_F(EvManagement, ADeniedEvIsNotSentOnUntilAllowed) {
  connect(kGivenSet);
  const auto deny = a_->dev.set_ev_allowed(a_->qpn, 0x1003, false);
  ASSERT_TRUE(deny) << deny.error().message;
  EXPECT_EQ(*deny, ext::EvState::kDenied);
  EXPECT_EQ(a_->dev.query_qp(a_->qpn)->ev_states.at(2), ext::EvState::kDenied);
  const auto denied = evs_used(write(10));
  EXPECT_FALSE(denied.contains(0x1003));
  EXPECT_EQ(denied.size(), kGivenSet.size() - 1);
  for (const auto& [ev, n] : denied) EXPECT_EQ(n, 2) << "EV " << ev;

  const auto allow = a_->dev.set_ev_allowed(a_->qpn, 0x1003, true);
  ASSERT_TRUE(allow) << allow.error().message;
  EXPECT_EQ(*allow, ext::EvState::kGood);
  const auto allowed = evs_used(write(12));
  EXPECT_EQ(allowed.size(), kGivenSet.size());
  EXPECT_EQ(allowed.contains(0x1003) ? allowed.at(0x1003) : 0, 2);
}

// MR-PF-07 with a given set: plane 3's port down, its two EVs go unused while the others
// carry everything; T_PF_PORT_UP_HOLD after the port is up again they carry their share.
TEST_F(EvManagement, APlaneWhosePortIsDownIsNotUsed) {
  connect(kGivenSet);
  a_->dev.set_plane_port(3, /*up=*/false, now_);
  const auto down = evs_used(write(8));
  EXPECT_EQ(down.size(), 4u);
  EXPECT_FALSE(down.contains(0x1002));
  EXPECT_FALSE(down.contains(0x1005));

  a_->dev.set_plane_port(3, /*up=*/true, now_);
  now_ += a_->dev.config().ext.paths.port_up_hold_ns;
  const auto up = evs_used(write(12));
  EXPECT_EQ(up.size(), kGivenSet.size());
}

// Without a given set, section 20.1's generated one (MR-MU-11): the given set replaces it.
TEST_F(EvManagement, WithoutAGivenSetTheQpUsesTheGeneratedOne) {
  connect(std::nullopt);
  const QpAttributes q = *a_->dev.query_qp(a_->qpn);
  const auto generated = ext::EvTable::default_set(a_->qpn, kPlanes, 16);
  ASSERT_TRUE(q.ev_set);
  ASSERT_EQ(q.ev_set->size(), generated.size());
  EXPECT_EQ(q.ev_set->front().ev, generated.front().ev);
}

// A QP left in base mode keeps the set it was given, unused, and query_qp reports it without
// states; management has no EV of it to deny.
TEST_F(EvManagement, ABaseQpKeepsItsGivenSetUnused) {
  connect(kGivenSet, /*b_ext=*/false);
  const QpAttributes q = *a_->dev.query_qp(a_->qpn);
  EXPECT_FALSE(q.ext_mode);
  ASSERT_TRUE(q.ev_set);
  EXPECT_EQ(q.ev_set->size(), kGivenSet.size());
  EXPECT_TRUE(q.ev_states.empty());
  const auto denied = a_->dev.set_ev_allowed(a_->qpn, 0x1001, false);
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().message,
            "qp " + std::to_string(a_->qpn) + " is in base mode: it sends on no EV set");
}

TEST_F(EvManagement, ManagementNamesAnEvOfAnExtQp) {
  connect(kGivenSet);
  const auto unknown_ev = a_->dev.set_ev_allowed(a_->qpn, 0x1234, false);
  ASSERT_FALSE(unknown_ev);
  EXPECT_EQ(unknown_ev.error().message,
            "ev: 4660 is not in the EV set of qp " + std::to_string(a_->qpn));
  const auto unknown_qp = a_->dev.set_ev_allowed(a_->qpn + 1, 0x1001, false);
  ASSERT_FALSE(unknown_qp);
  EXPECT_EQ(unknown_qp.error().message, "unknown qp " + std::to_string(a_->qpn + 1));
}

// The set is checked against the device's planes, and is taken only at INIT to RTR.
TEST_F(EvManagement, ASetIsRefusedOutsideInitToRtrOrOffTheDevicesPlanes) {
  a_ = std::make_unique<Endpoint>(config(1, true), 0x10000000);
  b_ = std::make_unique<Endpoint>(config(2, true), 0x20000000);
  QpAttributes init;
  init.state = QpState::kInit;
  init.ev_set = kGivenSet;
  const auto at_init =
      a_->dev.modify_qp(a_->qpn, init, kAttrState | kAttrPkey | kAttrAccessFlags | kAttrEvSet);
  ASSERT_FALSE(at_init);
  EXPECT_EQ(at_init.error().message, "ev_set: given only with the move from INIT to RTR");
  EXPECT_EQ(a_->dev.query_qp(a_->qpn)->state, QpState::kReset) << "a refused set changes nothing";
  ASSERT_TRUE(to_init(*a_));
  std::vector<ext::EvEntry> off = kGivenSet;
  off[1].plane = kPlanes;
  const auto bad_plane = to_rtr(*a_, *b_, off);
  ASSERT_FALSE(bad_plane);
  EXPECT_EQ(bad_plane.error().message,
            "ev_set[1].plane: 4 is not a plane of this device (it has 4)");
  const QpAttributes after = *a_->dev.query_qp(a_->qpn);
  EXPECT_EQ(after.state, QpState::kInit) << "a refused set changes nothing";
  EXPECT_FALSE(after.ev_set);
  std::vector<ext::EvEntry> twice = kGivenSet;
  twice[4].ev = twice[0].ev;
  const auto duplicate = to_rtr(*a_, *b_, twice);
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().message, "ev_set[4].ev: 4097 is listed twice");
  ASSERT_TRUE(to_rtr(*a_, *b_, kGivenSet));
  QpAttributes later;
  later.ev_set = kGivenSet;
  const auto at_rtr = a_->dev.modify_qp(a_->qpn, later, kAttrEvSet);
  ASSERT_FALSE(at_rtr);
  EXPECT_EQ(at_rtr.error().message, "ev_set: given only with the move from INIT to RTR");
}

}  // namespace
}  // namespace mr::transport
