// File: ack_policy_test.cpp
#include "reference/transport/ext/ack_policy.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

constexpr uint64_t kUs = 1'000;

struct Receiver {
  ReceivedPsnWindow window{0x200, 8};
  SackCursor cursor;
  AckPolicy policy{AckParameters{}};

  void arrive(AnsweredPacket p) {
    p.duplicate = window.classify(p.psn) != PsnArrival::kNew;
    window.record(p.psn);
    policy.on_packet(p);
    policy.on_cumulative(window.cumulative());
  }
};

TEST(AckPolicy, CoalescesUpToTheDelayOrEveryNthAcceptedPacket) {
  Receiver r;
  for (uint32_t i = 0; i < 7; ++i) r.arrive({.psn = 0x200 + i, .arrived_ns = i * kUs});
  EXPECT_FALSE(r.policy.ack_due(7 * kUs));
  EXPECT_EQ(r.policy.deadline(), 20 * kUs);  // T_EXT_ACK_DELAY after the oldest
  EXPECT_TRUE(r.policy.ack_due(20 * kUs));
  r.arrive({.psn = 0x207, .arrived_ns = 8 * kUs});  // the 8th accepted packet
  EXPECT_TRUE(r.policy.ack_due(8 * kUs));
  const wire::Sacketh s = r.policy.build(r.window, r.cursor, 9 * kUs);
  EXPECT_EQ(s.sack_ref.value(), 0x208u);
  EXPECT_FALSE(r.policy.ack_due(100 * kUs));  // everything answered
  EXPECT_FALSE(r.policy.deadline());
}

// Spec EX-E2: 0x200-0x203, 0x205 and 0x206 received (0x206 the trigger, on EV 0xC005 plane 1,
// TX timestamp 0x0001E240, answered 192 ns later), MPR 8.
TEST(AckPolicy, EchoesTheTriggeringPacket) {
  Receiver r;
  for (uint32_t p : {0x200u, 0x201u, 0x202u, 0x203u, 0x205u})
    r.arrive({.psn = p, .ev = 0xC001, .arrived_ns = 0});
  r.arrive(
      {.psn = 0x206, .ev = 0xC005, .plane = 1, .tx_timestamp = 0x0001E240, .arrived_ns = 1'000});
  const wire::Sacketh s = r.policy.build(r.window, r.cursor, 1'192);
  EXPECT_EQ(s.sack_ref.value(), 0x200u);
  EXPECT_EQ(s.bitmap.value(), 0x6Fu);
  EXPECT_EQ(s.ev_echo.value(), 0xC005);
  EXPECT_EQ(s.plane_echo.value(), 1);
  EXPECT_EQ(s.mpr.value(), 8);
  EXPECT_EQ(s.tse.value(), 1);
  EXPECT_EQ(s.ts_echo.value(), 0x0001E240u);
  EXPECT_EQ(s.service_time.value(), 3);  // 192 ns in units of 64
  EXPECT_EQ(s.dup.value(), 0);
  EXPECT_EQ(s.ara.value(), 0);
}

TEST(AckPolicy, AnAckRequestIsAnsweredAtOnceWithAra) {
  Receiver r;
  r.arrive({.psn = 0x200, .arrived_ns = 0});
  EXPECT_FALSE(r.policy.ack_due(0));
  r.arrive({.psn = 0x202, .ack_request = true, .arrived_ns = 1 * kUs});
  EXPECT_TRUE(r.policy.ack_due(1 * kUs));
  const wire::Sacketh s = r.policy.build(r.window, r.cursor, 1 * kUs);
  EXPECT_EQ(s.ara.value(), 1);
}

// MR-SA-30: the tail's AR packet overtook 0x201. Its own ACK shows the hole; the straggler
// that fills it is answered at once, not T_EXT_ACK_DELAY later.
TEST(AckPolicy, AnAckRequestAnsweredAboveAHoleIsAnsweredAgainWhenTheHoleFills) {
  Receiver r;
  r.arrive({.psn = 0x200, .arrived_ns = 0});
  r.arrive({.psn = 0x202, .ack_request = true, .arrived_ns = 1 * kUs});
  ASSERT_TRUE(r.policy.ack_due(1 * kUs));
  EXPECT_EQ(r.policy.build(r.window, r.cursor, 1 * kUs).ara.value(), 1);
  EXPECT_EQ(r.window.cumulative(), 0x200u);
  r.arrive({.psn = 0x201, .arrived_ns = 3 * kUs});
  EXPECT_TRUE(r.policy.ack_due(3 * kUs));
  const wire::Sacketh s = r.policy.build(r.window, r.cursor, 3 * kUs);
  EXPECT_EQ(s.ara.value(), 0);  // it answers the straggler, which asked for nothing
  // Answered: the next packet waits for the delay again.
  r.arrive({.psn = 0x203, .arrived_ns = 4 * kUs});
  EXPECT_FALSE(r.policy.ack_due(4 * kUs));
}

// An ACK built for another reason (an ATOMIC's, a NAK) that already reports the AR packet
// cumulatively answers it: the next packet waits for the delay again.
TEST(AckPolicy, AnAckThatCoversTheAwaitedAckRequestEndsTheWait) {
  Receiver r;
  r.arrive({.psn = 0x202, .ack_request = true, .arrived_ns = 0});
  r.policy.build(r.window, r.cursor, 0);  // C before 0x202: awaited
  r.window.record(0x200);
  r.window.record(0x201);  // the hole fills without on_cumulative, as when an ACK is built
  r.policy.on_packet({.psn = 0x201, .arrived_ns = 1 * kUs});
  r.policy.build(r.window, r.cursor, 1 * kUs);  // C = 0x202: told
  r.arrive({.psn = 0x203, .arrived_ns = 2 * kUs});
  EXPECT_FALSE(r.policy.ack_due(2 * kUs));
}

TEST(AckPolicy, AnAckRequestWithNoHoleBelowItAsksForNothingMoreLater) {
  Receiver r;
  r.arrive({.psn = 0x200, .ack_request = true, .arrived_ns = 0});
  r.policy.build(r.window, r.cursor, 0);
  r.arrive({.psn = 0x202, .arrived_ns = 1 * kUs});
  r.arrive({.psn = 0x201, .arrived_ns = 2 * kUs});  // fills a hole, but no AR waits on it
  EXPECT_FALSE(r.policy.ack_due(2 * kUs));
  EXPECT_EQ(r.policy.deadline(), 21 * kUs);
}

// Holes below the AR packet fill one at a time: only the last one is answered at once.
TEST(AckPolicy, AnAckRequestWaitsForEveryHoleBelowIt) {
  Receiver r;
  r.arrive({.psn = 0x203, .ack_request = true, .arrived_ns = 0});
  r.policy.build(r.window, r.cursor, 0);
  r.arrive({.psn = 0x201, .arrived_ns = 1 * kUs});
  r.arrive({.psn = 0x200, .arrived_ns = 2 * kUs});  // C = 0x201: 0x202 still missing
  EXPECT_FALSE(r.policy.ack_due(2 * kUs));
  r.arrive({.psn = 0x202, .arrived_ns = 3 * kUs});
  EXPECT_TRUE(r.policy.ack_due(3 * kUs));
}

TEST(AckPolicy, ADuplicateTriggerSetsDup) {
  Receiver r;
  r.arrive({.psn = 0x200, .arrived_ns = 0});
  r.policy.build(r.window, r.cursor, 0);
  r.arrive({.psn = 0x200, .arrived_ns = 1 * kUs});  // again
  const wire::Sacketh s = r.policy.build(r.window, r.cursor, 2 * kUs);
  EXPECT_EQ(s.dup.value(), 1);
}

TEST(AckPolicy, ARemarkedTriggerSetsTrm) {
  Receiver r;
  r.arrive({.psn = 0x200, .remarked = true, .arrived_ns = 0});
  EXPECT_EQ(r.policy.build(r.window, r.cursor, 0).trm.value(), 1);  // MR-TR-12
  r.arrive({.psn = 0x201, .arrived_ns = 0});
  EXPECT_EQ(r.policy.build(r.window, r.cursor, 0).trm.value(), 0);
}

TEST(AckPolicy, CountsCeMarksSinceThePreviousAck) {
  Receiver r;
  r.arrive({.psn = 0x200, .ce = true, .arrived_ns = 0});
  r.arrive({.psn = 0x201, .ce = true, .arrived_ns = 0});
  r.arrive({.psn = 0x202, .arrived_ns = 0});
  EXPECT_FALSE(r.policy.ack_due(0));  // without ADAPTIVE a CE mark waits like any packet
  wire::Sacketh s = r.policy.build(r.window, r.cursor, 0);
  EXPECT_EQ(s.ce_count.value(), 2);
  EXPECT_EQ(s.ece.value(), 0);  // the trigger, 0x202, was not marked
  r.arrive({.psn = 0x203, .arrived_ns = 0});
  s = r.policy.build(r.window, r.cursor, 0);
  EXPECT_EQ(s.ce_count.value(), 0);
}

TEST(AckPolicy, WithAdaptiveEveryCeMarkedPacketGetsItsOwnAck) {
  Receiver r;
  r.policy = AckPolicy(AckParameters{.adaptive = true});
  r.arrive({.psn = 0x200, .ce = true, .ev = 0xC007, .arrived_ns = 0});
  EXPECT_TRUE(r.policy.ack_due(0));
  const wire::Sacketh s = r.policy.build(r.window, r.cursor, 0);
  EXPECT_EQ(s.ece.value(), 1);
  EXPECT_EQ(s.ev_echo.value(), 0xC007);
}

TEST(AckPolicy, AProbeIsAnsweredAtOnceWithPrb) {
  Receiver r;
  r.policy.on_packet({.psn = 0x1ff, .duplicate = true, .probe = true, .ev = 0x4C11, .plane = 2});
  EXPECT_TRUE(r.policy.ack_due(0));
  const wire::Sacketh s = r.policy.build(r.window, r.cursor, 0);
  EXPECT_EQ(s.prb.value(), 1);
  EXPECT_EQ(s.ev_echo.value(), 0x4C11);
}

TEST(AckPolicy, ReportsAPacketBeyondTheWindowOnce) {
  Receiver r;
  r.policy.on_beyond_window();
  r.arrive({.psn = 0x200, .arrived_ns = 0});
  EXPECT_EQ(r.policy.build(r.window, r.cursor, 0).oow.value(), 1);
  r.arrive({.psn = 0x201, .arrived_ns = 0});
  EXPECT_EQ(r.policy.build(r.window, r.cursor, 0).oow.value(), 0);
}

TEST(AckPolicy, ServiceTimeSaturates) {
  Receiver r;
  r.arrive({.psn = 0x200, .arrived_ns = 0});
  EXPECT_EQ(r.policy.build(r.window, r.cursor, 10'000'000).service_time.value(), 0xffff);
}

}  // namespace
}  // namespace mr::transport::ext
