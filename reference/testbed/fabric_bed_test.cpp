// Reference devices on the multi-plane fabric: an Ext QP sprays over every plane and a base
// QP keeps to one, memory and completions checked; the bed refuses per-plane addressing.
#include "reference/testbed/fabric_bed.h"

#include <gtest/gtest.h>

#include <random>

namespace mr::testbed {
namespace {

using io::fabric::FabricConfig;
using io::fabric::PlaneTopology;

FabricConfig planes(uint32_t n, uint32_t endpoints = 2) {
  FabricConfig f{.endpoints = endpoints, .seed = 11};
  f.planes.assign(n, PlaneTopology{});
  f.addressing.shared = true;
  return f;
}

wire::Mxcap multipath() {
  wire::Mxcap m;
  m.features = m.features | wire::kMxcapMultipath;
  return m;
}

// Writes `bytes` of a seeded pattern from a to b over connection c; true once a completed
// it successfully and b's region holds the pattern.
bool write_and_check(FabricBed& bed, const RcConnection& c, uint32_t bytes, uint64_t seed) {
  std::vector<uint8_t> data(bytes);
  std::mt19937_64 g(seed);
  for (auto& x : data) x = static_cast<uint8_t>(g());
  transport::Device& a = bed.device(c.a);
  if (!a.memory().write(c.mr_a.lkey, c.mr_a.va, data)) return false;
  transport::SendWr w;
  w.wr_id = seed;
  w.opcode = transport::SendOpcode::kWrite;
  w.sg_list = {transport::Sge{c.mr_a.va, bytes, c.mr_a.lkey}};
  w.remote_addr = c.mr_b.va;
  w.rkey = c.mr_b.rkey;
  if (!a.post_send(c.qp_a, w)) return false;
  bed.touch(c.a);
  std::vector<transport::Completion> got;
  const bool done = bed.run_until(
      [&] {
        auto polled = *a.poll_cq(bed.cq(c.a), 16);
        got.insert(got.end(), polled.begin(), polled.end());
        return !got.empty();
      },
      1'000'000'000);
  if (!done || got.size() != 1 || got[0].status != transport::WcStatus::kSuccess) return false;
  return *bed.device(c.b).memory().read(c.mr_b.lkey, c.mr_b.va, bytes) == data;
}

TEST(FabricBed, AnExtQpSpraysAWriteOverEveryPlane) {
  auto bed = FabricBed::create(planes(8), {.mxcap = multipath()}).value();
  const RcConnection c = bed->connect(0, 1, {}).value();
  ASSERT_TRUE(write_and_check(*bed, c, 1 << 20, 3));
  for (uint32_t p = 0; p < 8; ++p) {
    // 256 packets over 16 entries on 8 planes: 32 request frames on each.
    EXPECT_GE(bed->fabric().plane_counters(p).frames_sent, 2u * 32u) << "plane " << p;
    EXPECT_EQ(bed->fabric().plane_counters(p).dropped(), 0u) << "plane " << p;
  }
  EXPECT_EQ(bed->device(0).counters().ext_retransmitted, 0u);
}

TEST(FabricBed, ABaseQpKeepsToThePlaneOfItsQpn) {
  auto bed = FabricBed::create(planes(4), {}).value();
  const RcConnection c = bed->connect(0, 1, {}).value();
  ASSERT_TRUE(write_and_check(*bed, c, 1 << 20, 4));
  for (uint32_t p = 0; p < 4; ++p) {
    const uint64_t sent = bed->fabric().plane_counters(p).frames_sent;
    // Requests on a's plane, ACKs on b's: each QPN's hash picks its port.
    const bool used =
        p == bed->device(0).base_plane(c.qp_a) || p == bed->device(1).base_plane(c.qp_b);
    EXPECT_EQ(sent > 0, used) << "plane " << p << " carried " << sent;
  }
}

TEST(FabricBed, ManyConnectionsShareTheFabricAndEachPlacesItsOwnData) {
  auto bed = FabricBed::create(planes(2, 8), {.mxcap = multipath()}).value();
  std::vector<RcConnection> conns;
  for (uint32_t i = 0; i < 4; ++i) conns.push_back(bed->connect(i, i + 4, {}).value());
  for (uint32_t i = 0; i < 4; ++i) EXPECT_TRUE(write_and_check(*bed, conns[i], 64 * 1024, 10 + i));
}

// Endpoint 1 has queued a 4 MiB WRITE to 0 on its port (no window holds it back) when 0
// writes one packet to 1. 1's ACK for it goes out between its requests, as a NIC's arbiter
// sends it: 0's WRITE completes in about an RTT, not after the requests 1 queued first.
TEST(FabricBed, AcknowledgementsGoOutAheadOfTheDataTheDeviceQueuedBeforeThem) {
  std::vector<uint64_t> took;
  for (const bool nic_arbiter : {true, false}) {
    auto bed =
        FabricBed::create(planes(1), {.mxcap = wire::Mxcap{}, .nic_arbiter = nic_arbiter}).value();
    const RcConnection big = bed->connect(1, 0, {.region_bytes = 4 << 20}).value();
    const RcConnection small = bed->connect(0, 1, {.region_bytes = 4096}).value();
    auto post = [&](const RcConnection& c, uint32_t bytes) {
      transport::SendWr w;
      w.opcode = transport::SendOpcode::kWrite;
      w.sg_list = {transport::Sge{c.mr_a.va, bytes, c.mr_a.lkey}};
      w.remote_addr = c.mr_b.va;
      w.rkey = c.mr_b.rkey;
      ASSERT_TRUE(bed->device(c.a).post_send(c.qp_a, w));
      bed->touch(c.a);
    };
    post(big, 4 << 20);
    bed->run_until([] { return false; }, 1'000);
    const uint64_t start = bed->now_ns();
    post(small, 4096);
    ASSERT_TRUE(bed->run_until([&] { return !bed->device(0).poll_cq(bed->cq(0), 1)->empty(); },
                               1'000'000'000));
    took.push_back(bed->now_ns() - start);
  }
  // One switch, 500 ns cables at 100 Gb/s: a base RTT of about 2.5 us.
  EXPECT_LT(took[0], 10'000U) << "FIFO: " << took[1] << " ns";
  EXPECT_GT(took[1], 4 * took[0]) << "NIC arbiter: " << took[0] << " ns";
}

TEST(FabricBed, RefusesAFabricWhosePlanesHaveTheirOwnAddresses) {
  FabricConfig f = planes(2);
  f.addressing.shared = false;
  auto bed = FabricBed::create(f, {});
  ASSERT_FALSE(bed);
  EXPECT_NE(bed.error().find("addressing.shared"), std::string::npos) << bed.error();
}

TEST(FabricBed, ConnectNamesEndpointsTheBedDoesNotHave) {
  auto bed = FabricBed::create(planes(1), {}).value();
  auto c = bed->connect(0, 5, {});
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().find("endpoints 0 and 5"), std::string::npos) << c.error();
}

}  // namespace
}  // namespace mr::testbed
