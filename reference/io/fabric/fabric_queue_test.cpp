// Egress queues: drop-tail at the configured capacity, trimming instead when the switch
// trims (spec 23), and RED-style ECN marking at enqueue.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

#include "reference/io/fabric/fabric.h"
#include "reference/io/fabric/fabric_test_frames.h"
#include "reference/io/internet_checksum.h"

namespace mr::io::fabric {
namespace {

constexpr uint32_t kBurst = 40;
constexpr uint32_t kFrameBytes = 1000;
constexpr uint64_t kQueueBytes = 10'000;
const CableRef kSlowCable{0, CableTier::kHost, 2, 0};

// Endpoint 0 sends a burst to endpoint 2, whose cable runs at a tenth of the rate: the
// switch's egress port toward 2 fills.
FabricConfig congested() {
  FabricConfig c{.endpoints = 3};
  c.planes = {PlaneTopology{.host_link = {.propagation_ns = 100, .queue_bytes = kQueueBytes}}};
  c.faults.degraded.push_back({.cable = kSlowCable, .rate_fraction = 0.1});
  return c;
}

struct Received {
  std::vector<Frame> frames;
  LinkCounters toward_receiver;
};

Received run_burst(const FabricConfig& config, TestFrameSpec spec = {}) {
  VirtualClock clock;
  auto fabric = Fabric::create(clock, config).value();
  std::vector<Frame> burst;
  for (uint32_t i = 0; i < kBurst; ++i) {
    spec.src = 0;
    spec.dst = 2;
    spec.frame_bytes = kFrameBytes;
    spec.psn = i;
    burst.push_back(test_frame(config, spec));
  }
  EXPECT_EQ(fabric->port(0, 0).send_burst(burst), kBurst);
  run_to_quiet(*fabric, clock);
  Received r;
  r.frames.resize(2 * kBurst);
  r.frames.resize(fabric->port(0, 2).receive_burst(r.frames, 0));
  r.toward_receiver = fabric->counters(kSlowCable, LinkDirection::kDown);
  return r;
}

uint32_t psn(const Frame& f) {
  const size_t at = 14 + 20 + 8 + 9;
  return uint32_t{f.bytes[at]} << 16 | uint32_t{f.bytes[at + 1]} << 8 | f.bytes[at + 2];
}
uint8_t dscp(const Frame& f) { return f.bytes[15] >> 2; }
uint8_t ecn(const Frame& f) { return f.bytes[15] & 3; }
uint16_t be16(const Frame& f, size_t at) {
  return static_cast<uint16_t>(f.bytes[at] << 8 | f.bytes[at + 1]);
}

TEST(FabricQueue, DropsAtTheTailOnceTheConfiguredCapacityIsFull) {
  const Received r = run_burst(congested());
  const uint64_t frame = r.frames.at(0).bytes.size();
  const uint64_t fit = kQueueBytes / frame;
  EXPECT_EQ(r.toward_receiver.max_queue_bytes, fit * frame);
  const uint64_t drops = r.toward_receiver.dropped(DropCause::kQueueOverflow);
  EXPECT_GT(drops, 0U);
  EXPECT_EQ(r.frames.size() + drops, kBurst);
  EXPECT_EQ(r.toward_receiver.frames_sent, r.frames.size());
  // Drop-tail keeps the head of the burst in order: PSNs arrive ascending.
  for (size_t i = 1; i < r.frames.size(); ++i) EXPECT_LT(psn(r.frames[i - 1]), psn(r.frames[i]));
  EXPECT_EQ(psn(r.frames[fit]), fit);  // the first frame on the wire, then `fit` queued
}

TEST(FabricQueue, TrimsInsteadOfDroppingAndSendsTrimmedFramesFirst) {
  FabricConfig config = congested();
  config.trimming = {.enabled = true, .ip_bytes = 128};
  const Received r = run_burst(config);
  ASSERT_EQ(r.frames.size(), kBurst);  // nothing lost
  EXPECT_EQ(r.toward_receiver.dropped(), 0U);
  uint64_t trimmed = 0;
  bool trimmed_overtook_a_full_frame = false;
  uint32_t lowest_full_psn_pending = kBurst;
  for (size_t i = 0; i < r.frames.size(); ++i) {
    const Frame& f = r.frames[i];
    if (f.bytes.size() != 14 + 128) continue;
    ++trimmed;
    EXPECT_EQ(dscp(f), 11) << "last hop before the receiver: V_TRIM_DSCP_LASTHOP";
    EXPECT_EQ(be16(f, 16), 128);       // IPv4 total length rewritten
    EXPECT_EQ(be16(f, 38), 128 - 20);  // UDP length rewritten
    EXPECT_EQ(internet_checksum(std::span(f.bytes).subspan(14, 20)), 0);
    // A full frame with a lower PSN still to come: the trimmed one jumped the queue.
    for (size_t j = i + 1; j < r.frames.size(); ++j) {
      if (r.frames[j].bytes.size() > 142 && psn(r.frames[j]) < psn(f)) {
        trimmed_overtook_a_full_frame = true;
        lowest_full_psn_pending = std::min(lowest_full_psn_pending, psn(r.frames[j]));
      }
    }
  }
  EXPECT_GT(trimmed, 0U);
  EXPECT_EQ(trimmed, r.toward_receiver.trimmed);
  EXPECT_TRUE(trimmed_overtook_a_full_frame);
  EXPECT_LT(lowest_full_psn_pending, kBurst);
}

TEST(FabricQueue, TrimmingCanLeaveLengthsAndChecksumAsTheyWere) {
  FabricConfig config = congested();
  config.trimming = {
      .enabled = true, .ip_bytes = 128, .rewrite_lengths = false, .recompute_ipv4_checksum = false};
  const Received r = run_burst(config);
  const uint16_t original_ip_length = be16(r.frames.at(0), 16);
  int trimmed = 0;
  for (const Frame& f : r.frames) {
    if (f.bytes.size() != 14 + 128) continue;
    ++trimmed;
    EXPECT_EQ(be16(f, 16), original_ip_length);
    EXPECT_EQ(be16(f, 38), original_ip_length - 20);
    EXPECT_NE(internet_checksum(std::span(f.bytes).subspan(14, 20)), 0);
  }
  EXPECT_GT(trimmed, 0);
}

TEST(FabricQueue, NeverTrimsControlFramesButDropsThem) {
  FabricConfig config = congested();
  config.trimming = {.enabled = true, .ip_bytes = 128};
  const Received r = run_burst(config, {.dscp = 46});
  EXPECT_EQ(r.toward_receiver.trimmed, 0U);
  EXPECT_GT(r.toward_receiver.dropped(DropCause::kQueueOverflow), 0U);
}

// An endpoint's port serves its requester's frames and its responder's in turn: two ACKs
// sent after ten queued requests each wait for one request, not for all of them; sent as
// requests, they wait for all ten.
TEST(FabricQueue, AnEndpointPortServesItsRequesterAndItsResponderInTurn) {
  const FabricConfig config{.endpoints = 2};
  for (const TransmitClass c : {TransmitClass::kResponse, TransmitClass::kRequest}) {
    VirtualClock clock;
    auto fabric = Fabric::create(clock, config).value();
    std::vector<Frame> requests;
    for (uint32_t i = 0; i < 10; ++i)
      requests.push_back(test_frame(config, {.src = 0, .dst = 1, .frame_bytes = 4000, .psn = i}));
    ASSERT_EQ(fabric->port(0, 0).send_burst(requests), requests.size());
    const std::vector<Frame> acks = {
        test_frame(config, {.src = 0, .dst = 1, .frame_bytes = 80, .psn = 98}),
        test_frame(config, {.src = 0, .dst = 1, .frame_bytes = 80, .psn = 99})};
    ASSERT_EQ(fabric->port(0, 0).send_burst(acks, c), 2U);
    run_to_quiet(*fabric, clock);
    std::vector<Frame> in(16);
    in.resize(fabric->port(0, 1).receive_burst(in, 0));
    std::vector<uint32_t> order(in.size());
    std::ranges::transform(in, order.begin(), psn);
    // Request 0 was on the wire already.
    if (c == TransmitClass::kResponse) {
      EXPECT_EQ(order, (std::vector<uint32_t>{0, 98, 1, 99, 2, 3, 4, 5, 6, 7, 8, 9}));
    } else {
      EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 98, 99}));
    }
  }
}

TEST(FabricQueue, RedMarksNothingBelowKmin) {
  FabricConfig config = congested();
  config.ecn = {.enabled = true,
                .kmin_bytes = kQueueBytes,
                .kmax_bytes = 2 * kQueueBytes,
                .max_probability = 1.0};
  const Received r = run_burst(config);
  for (const Frame& f : r.frames) EXPECT_EQ(ecn(f), 2);
  EXPECT_EQ(r.toward_receiver.ecn_marked, 0U);
}

TEST(FabricQueue, RedMarksEveryEcnCapableFrameAboveKmax) {
  FabricConfig config = congested();
  config.ecn = {.enabled = true, .kmin_bytes = 0, .kmax_bytes = 0};
  const Received r = run_burst(config);
  ASSERT_GT(r.frames.size(), 2U);
  // The first goes straight to the wire and the second finds the queue empty; every later
  // one finds it non-empty.
  EXPECT_EQ(ecn(r.frames[0]), 2);
  EXPECT_EQ(ecn(r.frames[1]), 2);
  for (size_t i = 2; i < r.frames.size(); ++i) EXPECT_EQ(ecn(r.frames[i]), 3) << i;
  EXPECT_EQ(r.toward_receiver.ecn_marked, r.frames.size() - 2);
  for (const Frame& f : r.frames) {
    EXPECT_EQ(internet_checksum(std::span(f.bytes).subspan(14, 20)), 0);
  }
}

TEST(FabricQueue, RedNeverMarksANonEctFrame) {
  FabricConfig config = congested();
  config.ecn = {.enabled = true, .kmin_bytes = 0, .kmax_bytes = 0};
  const Received r = run_burst(config, {.ecn = 0});
  ASSERT_GT(r.frames.size(), 2U);
  for (const Frame& f : r.frames) EXPECT_EQ(ecn(f), 0);
  EXPECT_EQ(r.toward_receiver.ecn_marked, 0U);
}

TEST(FabricQueue, RedMarksAFractionBetweenKminAndKmax) {
  FabricConfig config = congested();
  config.planes[0].host_link.queue_bytes = 1'000'000;
  config.ecn = {.enabled = true, .kmin_bytes = 0, .kmax_bytes = 50'000, .max_probability = 1.0};
  const Received r = run_burst(config);
  ASSERT_EQ(r.frames.size(), kBurst);
  // The depth grows to about 36 KB of the 50 KB kmax: some marked, not all.
  EXPECT_GT(r.toward_receiver.ecn_marked, 2U);
  EXPECT_LT(r.toward_receiver.ecn_marked, kBurst - 10);
}

}  // namespace
}  // namespace mr::io::fabric
