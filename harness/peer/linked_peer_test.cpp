// Two LinkedPeers on an in-memory link on the real clock, each with its pump thread: a WRITE
// and a SEND complete on both sides and move the bytes intact; the node answers ARP for the
// peer's address; a poll with nothing to return comes back empty within its bound; and a
// peer destroyed with work in flight stops at once.
#include "harness/peer/linked_peer.h"

#include <gtest/gtest.h>

#include <chrono>

#include "harness/peer/data_pattern.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"
#include "reference/io/node.h"

namespace mr::peer {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr uint64_t kRegion = 65536;

PeerIdentity identity(uint8_t host) {
  return {.mac = wire::MacAddress{{0x02, 0, 0, 0, 0, host}},
          .ip = wire::Ipv4Address{{198, 18, 0, host}},
          .ip6 = std::nullopt,
          .seed = host};
}

PeerPath path_to(const PeerIdentity& self, const PeerIdentity& other, uint32_t dest_qpn) {
  return {.av = address_vector(self, other.mac, other.ip),
          .dest_qpn = dest_qpn,
          .rq_psn = 0x100,
          .sq_psn = 0x100};
}

transport::SendWr send_wr(uint64_t wr_id, transport::SendOpcode op, const PeerQpInfo& from,
                          uint32_t length) {
  transport::SendWr wr;
  wr.wr_id = wr_id;
  wr.opcode = op;
  wr.sg_list.push_back({.addr = from.va, .length = length, .lkey = from.lkey});
  return wr;
}

class LinkedPeerTest : public ::testing::Test {
 protected:
  void connect_both() {
    auto qa = a_.create_qp({.mr_length = kRegion, .pattern_seed = 11});
    auto qb = b_.create_qp({.mr_length = kRegion, .pattern_seed = 22});
    ASSERT_TRUE(qa) << qa.error();
    ASSERT_TRUE(qb) << qb.error();
    qa_ = *qa;
    qb_ = *qb;
    ASSERT_TRUE(a_.connect(qa_.qpn, path_to(a_.identity(), b_.identity(), qb_.qpn)));
    ASSERT_TRUE(b_.connect(qb_.qpn, path_to(b_.identity(), a_.identity(), qa_.qpn)));
  }

  io::SystemClock clock_;
  io::MemoryLinkPair pair_{clock_, {.latency_ns = 10'000}};
  LinkedPeer a_{pair_.a(), identity(1)};
  LinkedPeer b_{pair_.b(), identity(2)};
  PeerQpInfo qa_;
  PeerQpInfo qb_;
};

TEST_F(LinkedPeerTest, WriteAndSendCompleteAndMoveTheBytes) {
  connect_both();
  auto write = send_wr(1, transport::SendOpcode::kWrite, qa_, 16384);
  write.remote_addr = qb_.va + 4096;
  write.rkey = qb_.rkey;
  ASSERT_TRUE(a_.post_send(qa_.qpn, write));
  auto written = all_succeeded(a_.poll(qa_.qpn, 16, 5000));
  ASSERT_TRUE(written) << written.error();
  ASSERT_EQ(written->size(), 1U);
  EXPECT_EQ((*written)[0].wr_id, 1U);
  EXPECT_EQ((*written)[0].opcode, transport::WcOpcode::kRdmaWrite);
  auto landed = b_.read(qb_.qpn, 4096, 16384);
  ASSERT_TRUE(landed) << landed.error();
  EXPECT_EQ(*landed, pattern_bytes(11, 16384));

  transport::RecvWr recv;
  recv.wr_id = 7;
  recv.sg_list.push_back({.addr = qb_.va + 32768, .length = 4096, .lkey = qb_.lkey});
  ASSERT_TRUE(b_.post_recv(qb_.qpn, recv));
  ASSERT_TRUE(a_.post_send(qa_.qpn, send_wr(2, transport::SendOpcode::kSend, qa_, 3000)));
  auto received = all_succeeded(b_.poll(qb_.qpn, 16, 5000));
  ASSERT_TRUE(received) << received.error();
  ASSERT_EQ(received->size(), 1U);
  EXPECT_EQ((*received)[0].wr_id, 7U);
  EXPECT_EQ((*received)[0].opcode, transport::WcOpcode::kRecv);
  EXPECT_EQ((*received)[0].byte_len, 3000U);
  auto sent = all_succeeded(a_.poll(qa_.qpn, 16, 5000));
  ASSERT_TRUE(sent) << sent.error();
  ASSERT_EQ(sent->size(), 1U);
  EXPECT_EQ((*sent)[0].opcode, transport::WcOpcode::kSend);
  auto message = b_.read(qb_.qpn, 32768, 3000);
  ASSERT_TRUE(message) << message.error();
  EXPECT_EQ(*message, pattern_bytes(11, 3000));
}

TEST_F(LinkedPeerTest, AFailedCompletionNamesItsWorkRequestOpcodeAndStatus) {
  connect_both();
  auto write = send_wr(42, transport::SendOpcode::kWrite, qa_, 64);
  write.remote_addr = qb_.va;
  write.rkey = qb_.rkey ^ 0xff;  // no such key on b: a remote access error
  ASSERT_TRUE(a_.post_send(qa_.qpn, write));
  auto done = all_succeeded(a_.poll(qa_.qpn, 16, 5000));
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().find("wr_id 42 (RDMA_WRITE)"), std::string::npos) << done.error();
}

TEST(LinkedPeer, AnswersArpForItsAddress) {
  io::SystemClock clock;
  io::MemoryLinkPair pair(clock);
  LinkedPeer peer(pair.a(), identity(1));
  io::Node asker(pair.b(), clock, {.mac = identity(2).mac, .ipv4 = identity(2).ip});
  auto mac = asker.resolve(identity(1).ip);
  ASSERT_TRUE(mac) << mac.error();
  EXPECT_EQ(*mac, identity(1).mac);
}

TEST_F(LinkedPeerTest, APollWithNothingToReturnIsEmptyWithinItsBound) {
  connect_both();
  const auto start = steady_clock::now();
  EXPECT_TRUE(a_.poll(qa_.qpn, 16, 50).empty());
  const auto waited = steady_clock::now() - start;
  EXPECT_GE(waited, milliseconds(50));
  EXPECT_LT(waited, milliseconds(2000));
  EXPECT_TRUE(a_.poll(0xabcdef, 16, 0).empty());  // no such QP: nothing, at once
}

TEST(LinkedPeer, DestroyedWithWorkInFlightStopsAtOnce) {
  io::SystemClock clock;
  io::MemoryLinkPair pair(clock);  // nobody on b: nothing is ever acknowledged
  const auto start = steady_clock::now();
  {
    LinkedPeer peer(pair.a(), identity(1));
    auto qp = peer.create_qp({.mr_length = kRegion});
    ASSERT_TRUE(qp) << qp.error();
    ASSERT_TRUE(peer.connect(qp->qpn, path_to(identity(1), identity(2), 0x55)));
    for (uint64_t i = 0; i < 64; ++i) {
      auto wr = send_wr(i, transport::SendOpcode::kWrite, *qp, 4096);
      wr.remote_addr = 0x1000;
      wr.rkey = 1;
      ASSERT_TRUE(peer.post_send(qp->qpn, wr));
    }
    EXPECT_TRUE(peer.with_peer([](ReferencePeer& p) { return p.busy(); }));
  }
  EXPECT_LT(steady_clock::now() - start, milliseconds(2000));
}

}  // namespace
}  // namespace mr::peer
