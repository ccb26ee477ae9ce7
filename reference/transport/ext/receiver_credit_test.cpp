// File: receiver_credit_test.cpp
#include "reference/transport/ext/receiver_credit.h"

#include <gtest/gtest.h>

#include <vector>

namespace mr::transport::ext {
namespace {

TEST(Credit, CostsAndPendingFollowSection26_7) {
  EXPECT_EQ(credit_cost(0), 1);
  EXPECT_EQ(credit_cost(256), 1);
  EXPECT_EQ(credit_cost(257), 2);
  EXPECT_EQ(credit_cost(4096), 16);
  EXPECT_EQ(pending_field(0), 0);
  EXPECT_EQ(pending_field(1), 1);
  EXPECT_EQ(pending_field(1'040'384), 254);
  EXPECT_EQ(pending_field(1'040'385), 255);
  EXPECT_EQ(pending_field(1ULL << 40), 255);
}

TEST(CreditSender, SpendsTheUnsolicitedAllowanceThenWaitsForAGrant) {
  CreditSender s(32'768);  // 128 units
  for (int k = 0; k < 8; ++k) {
    ASSERT_TRUE(s.may_send(4096)) << k;
    s.on_sent(4096);
  }
  EXPECT_FALSE(s.may_send(4096));
  EXPECT_FALSE(s.may_send(0));  // even an empty packet costs one unit
  EXPECT_TRUE(s.on_grant(128 + 16));
  EXPECT_TRUE(s.may_send(4096));
  EXPECT_FALSE(s.may_send(4097));
}

TEST(CreditSender, APacketDeclaredLostGivesItsCostBackForTheRetransmission) {
  CreditSender s(4096);  // 16 units: one full packet
  s.on_sent(4096);
  EXPECT_FALSE(s.may_send(4096));
  s.refund(4096);  // the receiver never counted it, and will not grant it again
  EXPECT_TRUE(s.may_send(4096));
  EXPECT_EQ(s.spent(), 0);
}

TEST(CreditSender, AStaleOrReorderedGrantNeverLowersTheLimit) {
  CreditSender s(32'768);
  EXPECT_TRUE(s.on_grant(300));
  EXPECT_FALSE(s.on_grant(200));  // older
  EXPECT_FALSE(s.on_grant(300));  // the same
  EXPECT_EQ(s.limit(), 300);
  EXPECT_FALSE(s.on_grant(static_cast<uint16_t>(300 + 0x8000)));  // half the space away
}

TEST(CreditSender, ComparesModulo2To16) {
  CreditSender s(256);                // L = 1
  for (int k = 0; k < 70'000; ++k) {  // S and L wrap past 2^16
    ASSERT_TRUE(s.may_send(256)) << k;
    s.on_sent(256);
    ASSERT_FALSE(s.may_send(256)) << k;
    ASSERT_TRUE(s.on_grant(static_cast<uint16_t>(s.limit() + 1))) << k;
  }
}

TEST(CreditReceiver, RaisesFromWhatHasArrivedAndCountsATrimmedPacketAsAPmtu) {
  CreditReceiver r;
  r.on_request(4096, false, 4096, 3, 0);  // 16 units
  r.on_request(64, true, 4096, 3, 0);     // trimmed: 16 units
  EXPECT_EQ(r.outstanding(), 0);          // C passed G = 0
  EXPECT_EQ(r.raise(64), 32 + 64);
  EXPECT_EQ(r.outstanding(), 64);
  EXPECT_TRUE(r.has_room(64, 128));
  EXPECT_FALSE(r.has_room(65, 128));
}

TEST(CreditReceiver, TakesOutstandingCreditAsLostAfterTheTimeout) {
  CreditReceiver r;
  r.on_request(256, false, 4096, 1, 0);
  r.raise(64);
  EXPECT_FALSE(r.expire(99'999, 100'000));
  EXPECT_TRUE(r.expire(100'000, 100'000));
  EXPECT_EQ(r.outstanding(), 0);
}

TEST(CreditScheduler, PacesRaisesToTheLinkShareRoundRobinOverQpsWithDemand) {
  CreditScheduler s(CreditParameters{});
  // 16,384 bytes at 0.95 x 100 Gbit/s: 1,379.7 ns, rounded up.
  EXPECT_EQ(s.interval_ns(), 1'380u);
  std::vector<CreditReceiver> qps(3);
  const auto at = [&](size_t i) { return &qps[i]; };
  qps[0].on_request(256, false, 4096, 5, 0);
  qps[2].on_request(256, false, 4096, 5, 0);  // qps[1] has no demand
  EXPECT_EQ(s.tick(qps.size(), at, 0), 0u);
  EXPECT_EQ(s.next_raise_ns(), 1'380u);
  EXPECT_FALSE(s.tick(qps.size(), at, 1'379));  // paced
  EXPECT_EQ(s.tick(qps.size(), at, 1'380), 2u);
  EXPECT_EQ(s.tick(qps.size(), at, 2'760), 0u);
  // Room: at most 131,072 bytes (512 units) outstanding per QP, 64 per raise.
  for (uint64_t t = 4'140; t < 100'000; t += 1'380) s.tick(qps.size(), at, t);
  EXPECT_LE(qps[0].outstanding(), 512);
  EXPECT_EQ(qps[0].outstanding(), 512);
  EXPECT_EQ(qps[1].granted(), 0);
}

TEST(CreditScheduler, SkipsAQpThatIsGoneAndRaisesNoMoreThanOneBurstAfterIdling) {
  CreditScheduler s(CreditParameters{});
  CreditReceiver r;
  r.on_request(256, false, 4096, 5, 0);
  const auto gone_then_r = [&](size_t i) { return i == 0 ? nullptr : &r; };
  EXPECT_EQ(s.tick(2, gone_then_r, 0), 1u);
  // Idle for a thousand intervals: the next tick raises once, not a thousand times.
  EXPECT_EQ(s.tick(2, gone_then_r, 1'380'000), 1u);
  EXPECT_FALSE(s.tick(2, gone_then_r, 1'380'001));
  EXPECT_EQ(r.granted(), 1 + 2 * 64);  // C = 1 unit, then two raises of one burst
}

// The switches only mutants turn off: each breaks exactly its rule.
TEST(CreditSender, WithoutModuloOrderTakesAStaleGrant) {
  CreditSender s(32'768, /*modulo_grant_order=*/false);
  EXPECT_TRUE(s.on_grant(100));  // 28 units behind the limit of 128
  EXPECT_EQ(s.limit(), 100);
  EXPECT_FALSE(s.on_grant(100));  // the same limit is still no grant
}

TEST(CreditScheduler, WithoutTheDemandRuleRaisesAQpThatAsksForNothing) {
  CreditParameters p;
  p.raises_need_demand = false;
  CreditScheduler s(p);
  CreditReceiver idle;
  idle.on_request(256, false, 4096, /*pending=*/0, 0);
  EXPECT_FALSE(CreditScheduler(CreditParameters{}).wants_raise(idle));
  EXPECT_TRUE(s.wants_raise(idle));
  EXPECT_EQ(s.tick(
                1, [&](size_t) { return &idle; }, 0),
            0u);
  EXPECT_EQ(idle.granted(), 1 + 64);
}

}  // namespace
}  // namespace mr::transport::ext
