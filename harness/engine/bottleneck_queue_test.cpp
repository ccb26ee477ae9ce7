#include "harness/engine/bottleneck_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace mr::engine {
namespace {

// An Ethernet + IPv4 frame of `size` bytes, ECT(0): what the queue marks.
std::vector<uint8_t> ipv4_frame(size_t size) {
  std::vector<uint8_t> f(size, 0);
  f[12] = 0x08;
  f[14] = 0x45;  // version 4, IHL 5
  f[15] = 0x02;  // ECT(0)
  return f;
}

bool ce(const std::vector<uint8_t>& f) { return (f[15] & 0x03) == 0x03; }

// 1,000 bytes + 24 of wire overhead at 8,000 Mbit/s: 1,024 ns on the wire.
constexpr BottleneckQueue::Config kEightGig{
    .rate_mbps = 8000, .ecn_k_bytes = 1500, .delay_ns = 500};

TEST(BottleneckQueue, ServesFramesBackToBackAtItsRateAndAddsItsDelay) {
  BottleneckQueue q(kEightGig);
  for (int i = 0; i < 3; ++i) q.admit(ipv4_frame(1000), 0);
  EXPECT_EQ(q.pop().out_ns, 1024U + 500);
  EXPECT_EQ(q.pop().out_ns, 2048U + 500);
  EXPECT_EQ(q.pop().out_ns, 3072U + 500);
  EXPECT_TRUE(q.empty());
}

TEST(BottleneckQueue, AFrameOnAnIdleLinkStartsWhenItArrives) {
  BottleneckQueue q(kEightGig);
  q.admit(ipv4_frame(1000), 0);
  q.admit(ipv4_frame(1000), 10'000);
  EXPECT_EQ(q.pop().out_ns, 1024U + 500);
  EXPECT_EQ(q.pop().out_ns, 10'000U + 1024 + 500);
}

TEST(BottleneckQueue, MarksAFrameThatLeavesWithMoreThanKBytesQueuedBehindIt) {
  BottleneckQueue q(kEightGig);
  for (int i = 0; i < 4; ++i) q.admit(ipv4_frame(1000), 0);
  // Behind each as it leaves: 3,000, 2,000, 1,000, 0 bytes of frames; K = 1,500.
  std::vector<bool> marks;
  while (!q.empty()) {
    auto l = q.pop();
    EXPECT_EQ(l.marked, ce(l.bytes));
    marks.push_back(l.marked);
  }
  EXPECT_EQ(marks, (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(q.marked(), 2U);
  EXPECT_EQ(q.peak_queued_bytes(), 3000U);
}

TEST(BottleneckQueue, CountsOnlyTheFramesThatArrivedBeforeTheHeadLeft) {
  BottleneckQueue q(kEightGig);
  q.admit(ipv4_frame(1000), 0);    // leaves at 0
  q.admit(ipv4_frame(1000), 100);  // behind it only from 100: not when the first left
  q.admit(ipv4_frame(1000), 200);
  q.admit(ipv4_frame(1000), 300);
  EXPECT_FALSE(q.pop().marked);
  EXPECT_TRUE(q.pop().marked);  // leaves at 1,024 with 2,000 bytes behind
}

TEST(BottleneckQueue, KeepsTimeOnARealClockSince1970) {
  BottleneckQueue q(kEightGig);
  constexpr uint64_t kNow = 1'796'661'446'139'719'192ULL;  // ns since 1970
  q.admit(ipv4_frame(1000), kNow);
  q.admit(ipv4_frame(100), kNow);  // 124 bytes: 124 ns on the wire
  EXPECT_EQ(q.pop().out_ns, kNow + 1024 + 500);
  EXPECT_EQ(q.pop().out_ns, kNow + 1024 + 124 + 500);
}

TEST(BottleneckQueue, CarriesSubNanosecondWireTimeFromFrameToFrame) {
  // 37 bytes + 24 at 100,000 Mbit/s: 4,880 ps each; 1,000 of them end at exactly 4,880 ns
  // (whole nanoseconds per frame would lose 880 of them).
  BottleneckQueue q({.rate_mbps = 100'000, .ecn_k_bytes = 1'000'000, .delay_ns = 0});
  for (int i = 0; i < 1000; ++i) q.admit(std::vector<uint8_t>(37, 0), 0);
  uint64_t last = 0;
  while (!q.empty()) last = q.pop().out_ns;
  EXPECT_EQ(last, 4880U);
}

TEST(BottleneckQueue, MarksAtTheThresholdOnlyWhenAboveIt) {
  BottleneckQueue q({.rate_mbps = 8000, .ecn_k_bytes = 2000, .delay_ns = 0});
  for (int i = 0; i < 3; ++i) q.admit(ipv4_frame(1000), 0);
  EXPECT_FALSE(q.pop().marked);  // exactly 2,000 behind: not more than K
}

}  // namespace
}  // namespace mr::engine
