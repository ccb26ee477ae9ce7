// Two ReferencePeers back to back on one virtual time line: the QPN the caller chose is the
// one on the wire, the region starts with its seeded pattern, a WRITE moves it intact, and a
// crafted request moves the QP's next PSN.
#include "harness/peer/reference_peer.h"

#include <gtest/gtest.h>

#include "harness/peer/data_pattern.h"
#include "reference/wire/frame_decoder.h"

namespace mr::peer {
namespace {

PeerIdentity identity(uint8_t host) {
  return {wire::MacAddress{{0x02, 0, 0, 0, 0, host}}, wire::Ipv4Address{{198, 18, 0, host}},
          std::nullopt, host};
}

PeerPath path_to(uint8_t from, uint8_t to, uint32_t dest_qpn, uint32_t rq, uint32_t sq) {
  PeerPath p;
  p.av.smac = identity(from).mac;
  p.av.dmac = identity(to).mac;
  p.av.sip = identity(from).ip;
  p.av.dip = identity(to).ip;
  p.dest_qpn = dest_qpn;
  p.rq_psn = rq;
  p.sq_psn = sq;
  return p;
}

// Moves frames between the two until neither has anything to send or a timer due by `until`.
void run(ReferencePeer& a, ReferencePeer& b, uint64_t& now, uint64_t until) {
  for (int round = 0; round < 100000 && now <= until; ++round) {
    a.advance(now);
    b.advance(now);
    auto fa = a.take_outbox();
    auto fb = b.take_outbox();
    for (const auto& f : fa) b.receive(f, now);
    for (const auto& f : fb) a.receive(f, now);
    if (fa.empty() && fb.empty()) {
      auto next = a.next_deadline();
      if (auto nb = b.next_deadline(); nb && (!next || *nb < *next)) next = nb;
      if (!next) return;
      now = std::max(now + 1, *next);
    } else {
      now += 1000;
    }
  }
}

TEST(ReferencePeer, AWriteMovesTheSeededPatternIntactOnTheChosenQpns) {
  ReferencePeer a(identity(1));
  ReferencePeer b(identity(2));
  auto qa = a.create_qp({.qpn = 0x000101, .mr_length = 65536, .pattern_seed = 11});
  auto qb =
      b.create_qp({.qpn = 0x000202, .mr_length = 65536, .va = 0x50000000, .pattern_seed = 22});
  ASSERT_TRUE(qa) << qa.error();
  ASSERT_TRUE(qb) << qb.error();
  EXPECT_EQ(qa->qpn, 0x000101U);
  EXPECT_TRUE(a.owns(0x000101));
  EXPECT_FALSE(a.owns(0x000202));
  EXPECT_EQ(*a.read(qa->qpn, 0, 65536), pattern_bytes(11, 65536));
  ASSERT_TRUE(a.connect(qa->qpn, path_to(1, 2, qb->qpn, 500, 100)));
  ASSERT_TRUE(b.connect(qb->qpn, path_to(2, 1, qa->qpn, 100, 500)));
  transport::SendWr wr;
  wr.wr_id = 9;
  wr.opcode = transport::SendOpcode::kWrite;
  wr.sg_list = {{qa->va, 65536, qa->lkey}};
  wr.remote_addr = qb->va;
  wr.rkey = qb->rkey;
  ASSERT_TRUE(a.post_send(qa->qpn, wr));
  EXPECT_TRUE(a.busy());
  uint64_t now = 0;
  run(a, b, now, 1'000'000'000);
  auto done = a.poll(qa->qpn, 4);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].wr_id, 9U);
  EXPECT_EQ(done[0].status, transport::WcStatus::kSuccess);
  EXPECT_FALSE(a.busy());
  EXPECT_EQ(*b.read(qb->qpn, 0, 65536), pattern_bytes(11, 65536));
  EXPECT_FALSE(a.read(qa->qpn, 65000, 1000));  // past the region: refused, not clipped
}

TEST(ReferencePeer, ACraftedRequestMovesTheNextRequestPsn) {
  ReferencePeer a(identity(1));
  auto qa = a.create_qp({.qpn = 0x000101, .mr_length = 4096});
  ASSERT_TRUE(qa);
  ASSERT_TRUE(a.connect(qa->qpn, path_to(1, 2, 0x202, 0, 100)));
  a.note_crafted_request(qa->qpn, 0x000200);
  transport::SendWr wr;
  wr.opcode = transport::SendOpcode::kWrite;
  wr.sg_list = {{qa->va, 16, qa->lkey}};
  wr.rkey = 1;
  ASSERT_TRUE(a.post_send(qa->qpn, wr));
  a.advance(0);
  auto out = a.take_outbox();
  ASSERT_EQ(out.size(), 1U);
  auto d = wire::decode_frame(out[0]);
  ASSERT_TRUE(d);
  const auto& roce = std::get<wire::DecodedRoce>(*d);
  EXPECT_EQ(roce.packet.bth.psn.value(), 0x000201U);
  EXPECT_EQ(roce.packet.bth.dqpn.value(), 0x202U);
}

TEST(ReferencePeer, UdQpsAreRefused) {
  ReferencePeer a(identity(1));
  EXPECT_FALSE(a.create_qp({.type = transport::QpType::kUd, .qpn = 5}));
}

}  // namespace
}  // namespace mr::peer
