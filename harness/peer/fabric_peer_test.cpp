// RoCE between real hosts through the fabric on the real clock: a reference peer in each
// endpoint namespace, on its port's veth, writes to the other through RealTimeFabric, whose
// cables lose 2% of the frames; go-back-N recovers and every byte lands.
#include <gtest/gtest.h>

#include "harness/peer/data_pattern.h"
#include "harness/peer/linked_peer.h"
#include "reference/io/fabric/real_time_fabric.h"

namespace mr::peer {
namespace {

using io::fabric::FabricConfig;

constexpr uint32_t kBytes = 256 * 1024;

// On a failure: where frames were lost (the fabric's drops by cause, the rings' drops).
std::string where_frames_went(const io::fabric::RealTimeFabric& fabric,
                              std::vector<io::PcapLink>& ports,
                              std::vector<std::vector<io::PcapLink>>& fabric_links) {
  const io::fabric::LinkCounters c = fabric.fabric().plane_counters(0);
  std::string why = "fabric: " + std::to_string(fabric.frames_in()) + " frames in (" +
                    std::to_string(fabric.frames_refused()) + " refused by a full port), " +
                    std::to_string(fabric.frames_out()) + " out, drops by cause:";
  for (const uint64_t d : c.drops) why += " " + std::to_string(d);
  auto ring = [&](const char* what, const io::PcapLink& l) {
    if (auto st = l.stats())
      why += std::string("; ") + what + " ring received " + std::to_string(st->received) +
             ", dropped " + std::to_string(st->dropped);
  };
  for (const io::PcapLink& l : ports) ring("host", l);
  for (const io::PcapLink& l : fabric_links.at(0)) ring("fabric", l);
  return why;
}

TEST(FabricPeer, AWriteCrossesTheRealTimeFabricThroughItsLossesIntact) {
  FabricConfig config{.endpoints = 2, .seed = 5};
  config.planes.assign(1, io::fabric::PlaneTopology{
                              .host_link = {.rate_bps = 10'000'000'000, .propagation_ns = 10'000}});
  config.faults.losses.push_back({.probability = 0.02});
  auto bed = io::fabric::RealTimeFabricBed::start(config);
  ASSERT_TRUE(bed) << bed.error();
  io::fabric::FabricNamespaces& net = *(*bed)->net;
  io::fabric::RealTimeFabric& fabric = *(*bed)->fabric;

  std::vector<io::PcapLink> ports;
  std::vector<PeerIdentity> ids;
  for (uint32_t e = 0; e < 2; ++e) {
    auto link = net.open_endpoint_link(e, 0);
    ASSERT_TRUE(link) << link.error();
    ports.push_back(std::move(*link));
    ids.push_back(
        {.mac = config.addressing.mac(0, e), .ip = config.addressing.ipv4(0, e), .seed = e + 1});
  }
  auto a_owner = std::make_unique<LinkedPeer>(ports[0], ids[0]);
  auto b_owner = std::make_unique<LinkedPeer>(ports[1], ids[1]);
  LinkedPeer& a = *a_owner;
  LinkedPeer& b = *b_owner;
  auto qa = a.create_qp({.mr_length = kBytes, .pattern_seed = 11});
  auto qb = b.create_qp({.mr_length = kBytes, .pattern_seed = 22});
  ASSERT_TRUE(qa && qb);
  // A 17 ms timeout (12): a lost tail waits that, not verbs' usual 67 ms, and a slow host
  // (the suite runs this under ThreadSanitizer too) does not time out what is on its way.
  const auto path = [](const PeerIdentity& self, const PeerIdentity& peer, uint32_t qpn) {
    return PeerPath{.av = address_vector(self, peer.mac, peer.ip),
                    .dest_qpn = qpn,
                    .rq_psn = 0x100,
                    .sq_psn = 0x100,
                    .timeout = 12};
  };
  ASSERT_TRUE(a.connect(qa->qpn, path(ids[0], ids[1], qb->qpn)));
  ASSERT_TRUE(b.connect(qb->qpn, path(ids[1], ids[0], qa->qpn)));

  transport::SendWr w;
  w.wr_id = 1;
  w.opcode = transport::SendOpcode::kWrite;
  w.sg_list.push_back({.addr = qa->va, .length = kBytes, .lkey = qa->lkey});
  w.remote_addr = qb->va;
  w.rkey = qb->rkey;
  ASSERT_TRUE(a.post_send(qa->qpn, w));
  auto done = all_succeeded(a.poll(qa->qpn, 1, 20'000));
  if (!done) {
    a_owner.reset();  // the pumps stop reading the rings whose counters we read
    b_owner.reset();
    fabric.stop();
    FAIL() << done.error() << "\n" << where_frames_went(fabric, ports, (*bed)->links);
  }
  ASSERT_EQ(done->size(), 1U);
  auto landed = b.read(qb->qpn, 0, kBytes);
  ASSERT_TRUE(landed) << landed.error();
  EXPECT_EQ(*landed, pattern_bytes(11, kBytes));

  fabric.stop();
  const io::fabric::LinkCounters c = fabric.fabric().plane_counters(0);
  EXPECT_GT(c.dropped(io::fabric::DropCause::kRandomLoss), 0U) << "the losses happened";
  EXPECT_GT(c.frames_sent, 2U * kBytes / 1024) << "every packet crossed two cables";
}

}  // namespace
}  // namespace mr::peer
