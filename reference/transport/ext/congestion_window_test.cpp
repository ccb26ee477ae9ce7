// File: congestion_window_test.cpp
#include "reference/transport/ext/congestion_window.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

constexpr uint64_t kNsPerUs = 1'000;

// Spec EX-W1 (section 26.5), row by row: the event, the step and the window after it.
struct Row {
  uint64_t t_ns;
  bool loss;  // NAK 0x65 for a 4096-byte packet
  uint64_t acked;
  bool ecn;
  std::optional<uint64_t> rtt_ns;
  uint64_t in_flight;
  WindowStep step;
  uint64_t cwnd_after;
};

TEST(CongestionWindow, ReplaysTheSpecsWindowExampleToTheByte) {
  using enum WindowStep;
  const Row rows[] = {
      {11'000, false, 32768, false, 11'000, 0, kProportionalIncrease, 128758},
      {12'000, false, 32768, false, 9'500, 0, kProportionalIncrease, 132927},
      {13'000, false, 16384, true, 12'000, 0, kNoChange, 132927},
      {14'000, false, 16384, true, 19'500, 0, kDecrease, 111658},
      {16'000, false, 8192, false, 18'500, 0, kFairIncrease, 113160},
      {20'000, false, 4096, true, 27'500, 0, kDecreaseGated, 113160},
      {21'000, true, 0, false, std::nullopt, 0, kLoss, 109064},
      {26'000, false, 4096, true, 45'500, 0, kDecrease, 54532},
      {38'000, false, 8192, true, 40'000, 40960, kQuickAdapt, 12288},
      {40'000, false, 16384, true, 30'000, 0, kIgnoredAfterQuickAdapt, 12288},
      {42'000, false, 24576, false, 14'500, 0, kProportionalIncrease, 24576},
      {43'000, false, 8192, false, 9'500, 0, kProportionalIncrease, 30037},
      {49'000, false, 8192, true, 25'000, 0, kDecrease, 18409},
  };
  CongestionWindow cc(CongestionParameters{}, 0);
  int n = 1;
  for (const Row& r : rows) {
    const WindowStep step =
        r.loss ? cc.on_loss(4096, r.rtt_ns, r.t_ns, r.in_flight)
               : cc.on_ack({.acked_bytes = r.acked, .ecn = r.ecn, .rtt_ns = r.rtt_ns}, r.t_ns,
                           r.in_flight);
    EXPECT_EQ(step, r.step) << "row " << n;
    EXPECT_EQ(cc.cwnd(), r.cwnd_after) << "row " << n;
    ++n;
  }
  EXPECT_EQ(cc.base_rtt_ns(), 9'500u);
}

TEST(CongestionWindow, StaysWithinItsBounds) {
  CongestionWindow cc(CongestionParameters{}, 0);
  for (int i = 0; i < 1000; ++i) cc.on_ack({.acked_bytes = 1 << 20, .rtt_ns = 10'000}, 1, 0);
  EXPECT_EQ(cc.cwnd(), 187'500u);
  for (int i = 0; i < 100; ++i) cc.on_loss(100'000, std::nullopt, 2, 0);
  EXPECT_EQ(cc.cwnd(), 4'096u);
}

TEST(CongestionWindow, SendsOnlyWhatTheWindowHoldsOrOnePacketWhenNothingIsInFlight) {
  const CongestionWindow cc(CongestionParameters{.cwnd_init = 8192}, 0);
  EXPECT_TRUE(cc.may_send(4096, 4096));
  EXPECT_FALSE(cc.may_send(4097, 4096));
  EXPECT_TRUE(cc.may_send(0, 65536));
}

TEST(CongestionWindow, PacesAtTheWindowPerBaseRtt) {
  // cwnd 125,000 bytes per 10 us: 12.5 bytes per ns; the bucket starts full (16,384 bytes).
  CongestionWindow cc(CongestionParameters{}, 0);
  ASSERT_TRUE(cc.paced(16'384, 0));
  cc.take(16'384);
  EXPECT_FALSE(cc.paced(4096, 0));
  EXPECT_FALSE(cc.paced(4096, 327));  // 4,087.5 bytes accrued
  EXPECT_TRUE(cc.paced(4096, 328));   // 4,100
}

TEST(CongestionWindow, ARefusalSaysWhenTheBucketWillHoldThePacket) {
  CongestionWindow cc(CongestionParameters{}, 0);  // 12.5 bytes per ns
  EXPECT_FALSE(cc.pacer_wait_ns());
  cc.take(16'384);
  ASSERT_FALSE(cc.paced(4096, 100));          // 1,250 bytes accrued
  EXPECT_EQ(cc.pacer_wait_ns(), 100u + 228);  // 2,846 more: 227.7 ns
  EXPECT_TRUE(cc.paced(4096, 328));
  cc.take(4096);
  EXPECT_EQ(cc.pacer_wait_ns(), 100u + 228);  // until the requester's next pass forgets it
  cc.forget_pacer_wait();
  EXPECT_FALSE(cc.pacer_wait_ns());
  // A packet larger than the bucket waits for a full bucket, not forever.
  ASSERT_FALSE(cc.paced(65'536, 328));
  EXPECT_EQ(cc.pacer_wait_ns(), 328u + 1311);  // 16,384 bytes at 12.5 per ns: 1,310.7 ns
  EXPECT_TRUE(cc.paced(65'536, 328 + 1311));
  cc.forget_pacer_wait();
  EXPECT_FALSE(cc.pacer_wait_ns());
}

TEST(CongestionWindow, TheRttSampleSubtractsTheServiceTimeIn32BitArithmetic) {
  EXPECT_EQ(rtt_sample(30'000, 20'000, 3), 30'000u - 20'000 - 192);
  EXPECT_EQ(rtt_sample(0x1'0000'0100ULL, 0xFFFF'FF00U, 0), 0x200u);  // across the wrap
}

}  // namespace
}  // namespace mr::transport::ext
