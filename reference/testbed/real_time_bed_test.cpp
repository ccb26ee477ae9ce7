// Extension QPs between network namespaces, through the fabric on the real clock: two
// reference devices, each on four planes (a veth per plane), write to each other while one
// plane is black-holed; the QPs leave the dead plane's entries and every byte lands.
#include <gtest/gtest.h>

#include <random>

#include "reference/io/fabric/real_time_fabric.h"
#include "reference/testbed/linked_device.h"
#include "reference/testbed/rc_connection.h"
#include "reference/transport/verbs_names.h"

namespace mr::testbed {
namespace {

using io::fabric::FabricConfig;

constexpr uint32_t kPlanes = 4;
constexpr uint32_t kDeadPlane = 2;
constexpr uint32_t kBytes = 4 << 20;

std::vector<uint8_t> pattern(uint32_t n, uint64_t seed) {
  std::vector<uint8_t> v(n);
  std::mt19937_64 g(seed);
  for (auto& x : v) x = static_cast<uint8_t>(g());
  return v;
}

TEST(RealTimeBed, AnExtWriteLeavesABlackHoledPlaneAndLandsWhole) {
  FabricConfig config{.endpoints = 2, .seed = 3};
  config.addressing.shared = true;  // one address per device on every plane
  // 10 Gb/s cables of 500 us: RTTs of 2 ms, well above the host's scheduling.
  config.planes.assign(kPlanes,
                       io::fabric::PlaneTopology{
                           .host_link = {.rate_bps = 10'000'000'000, .propagation_ns = 500'000}});
  config.faults.black_holes.push_back({.plane = kDeadPlane});
  auto bed = io::fabric::RealTimeFabricBed::start(config);
  ASSERT_TRUE(bed) << bed.error();
  io::fabric::FabricNamespaces& net = *(*bed)->net;
  io::fabric::RealTimeFabric& fabric = *(*bed)->fabric;

  std::vector<std::vector<io::PcapLink>> ports(2);
  std::vector<std::unique_ptr<LinkedDevice>> devices;
  std::vector<ConnectEnd> ends;
  for (uint32_t e = 0; e < 2; ++e) {
    std::vector<io::Link*> links;
    for (uint32_t p = 0; p < kPlanes; ++p) {
      auto link = net.open_endpoint_link(e, p);
      ASSERT_TRUE(link) << link.error();
      ports[e].push_back(std::move(*link));
    }
    for (io::PcapLink& l : ports[e]) links.push_back(&l);
    transport::DeviceConfig c;
    c.mac = config.addressing.mac(0, e);
    c.ip = config.addressing.ipv4(0, e);
    c.seed = 40 + e;
    c.planes = kPlanes;
    // RTO bounds for this bed's round trip (2 ms of cable, plus the host's scheduling, which
    // reaches milliseconds under load), as a deployment sets them above its fabric's RTT: with
    // the defaults (T_EXT_RTO_INIT 500 us, T_EXT_RTO_MIN 50 us) every first window timed out
    // before its ACK could come back, and on this 2-core host the QP ran out of retries in 1
    // to 3 runs of 10.
    c.ext.rto = {.initial_ns = 10'000'000, .min_ns = 5'000'000, .max_ns = 64'000'000};
    c.mxcap = wire::Mxcap{};
    c.mxcap->features = c.mxcap->features | wire::kMxcapMultipath;
    auto device = LinkedDevice::create(c, std::move(links));
    ASSERT_TRUE(device) << device.error();
    devices.push_back(std::move(*device));
    transport::Device& d = devices.back()->device();
    const uint32_t pd = *d.memory().alloc_pd();
    const uint32_t cq = *d.create_cq(1024);
    ends.push_back({.device = d, .pd = pd, .cq = cq, .endpoint = e});
  }
  auto c = connect_rc(ends[0], ends[1], {.path_mtu = 1024, .region_bytes = kBytes});
  ASSERT_TRUE(c) << c.error();
  const auto data = pattern(kBytes, 9);
  ASSERT_TRUE(devices[0]->device().memory().write(c->mr_a.lkey, c->mr_a.va, data));
  for (auto& d : devices) d->start();

  transport::SendWr w;
  w.wr_id = 1;
  w.opcode = transport::SendOpcode::kWrite;
  w.sg_list = {transport::Sge{c->mr_a.va, kBytes, c->mr_a.lkey}};
  w.remote_addr = c->mr_b.va;
  w.rkey = c->mr_b.rkey;
  ASSERT_TRUE(
      devices[0]->with_device([&](transport::Device& d) { return d.post_send(c->qp_a, w); }));
  std::vector<transport::Completion> done;
  for (int i = 0; i < 2000 && done.empty(); ++i) {  // 20 s at most
    auto polled =
        devices[0]->with_device([&](transport::Device& d) { return d.poll_cq(ends[0].cq, 4); });
    ASSERT_TRUE(polled) << polled.error().message;
    done = std::move(*polled);
    if (done.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(done.size(), 1U) << "no completion in 20 s";
  EXPECT_EQ(done[0].status, transport::WcStatus::kSuccess)
      << transport::wc_status_names()[static_cast<size_t>(done[0].status)];
  for (auto& d : devices) d->stop();
  fabric.stop();

  const auto placed = devices[1]->device().memory().read(c->mr_b.lkey, c->mr_b.va, kBytes);
  ASSERT_TRUE(placed) << placed.error();
  EXPECT_TRUE(*placed == data) << "the region b holds differs from what a wrote";
  const transport::QueuePair* qp = devices[0]->device().qp(c->qp_a);
  ASSERT_TRUE(qp && qp->ext) << "the QP ran in extension mode";
  EXPECT_GT(qp->ext->evs.counters().ev_assumed_bad, 0U) << "the dead plane's entries were left";
  const auto& f = fabric.fabric();
  EXPECT_GT(f.plane_counters(kDeadPlane).dropped(io::fabric::DropCause::kBlackHole), 0U);
  // Endpoint 0's host cable on each live plane, toward the switch: its data packets (4,096
  // at MTU 1024) went over four planes, then three: about a quarter to a third each. At least
  // a tenth each: on a loaded host the real clock's late timers can hold a live plane's EVs
  // down for a while (684 of the 819 a fifth would ask, in one CI run beside a build), and
  // a tenth still shows every live plane carried the transfer.
  for (uint32_t p = 0; p < kPlanes; ++p) {
    if (p == kDeadPlane) continue;
    const io::fabric::CableRef cable{.plane = p, .tier = io::fabric::CableTier::kHost, .a = 0};
    EXPECT_GT(f.counters(cable, io::fabric::LinkDirection::kUp).frames_sent,
              uint64_t{kBytes} / 1024 / 10)
        << "plane " << p << " carried its share";
  }
  EXPECT_EQ(devices[0]->frames_refused() + devices[1]->frames_refused(), 0U);
  EXPECT_EQ(fabric.frames_refused(), 0U) << "frames a full port ring of the fabric lost";
}

}  // namespace
}  // namespace mr::testbed
