#include "reference/transport/dcqcn_reaction_point.h"

#include <gtest/gtest.h>

namespace mr::transport {
namespace {

// A correct reaction point's decisions.
constexpr CongestionDecisions kCorrect{};

constexpr uint64_t kT0 = 1'000'000'000;
// An RDMA WRITE MIDDLE at path MTU 1024 over IPv4: 14 + 20 + 8 + 12 + 1024 + 4 bytes.
constexpr size_t kFrame = 1082;

TEST(DcqcnReactionPoint, StartsAtLineRateUnpaced) {
  DcqcnReactionPoint rp({});
  EXPECT_FALSE(rp.paced());
  EXPECT_EQ(rp.rate_bps(), 100e9);
  rp.on_sent(kT0, kFrame);
  EXPECT_EQ(rp.next_send_ns(), kT0);
}

TEST(DcqcnReactionPoint, FirstCnpHalvesTheRateAndSetsTheTarget) {
  DcqcnReactionPoint rp({});
  rp.on_cnp(kT0, kCorrect);
  EXPECT_EQ(rp.rate_bps(), 50e9);
  EXPECT_EQ(rp.target_rate_bps(), 100e9);
  EXPECT_EQ(rp.alpha(), 1.0);  // (1 - g) x 1 + g
  EXPECT_TRUE(rp.paced());
}

TEST(DcqcnReactionPoint, PacerSpacesPacketsAtTheCurrentRate) {
  DcqcnReactionPoint rp({});
  rp.on_cnp(kT0, kCorrect);
  rp.on_sent(kT0, kFrame);
  // 8656 bits at 50 Gb/s: 173.12 ns, rounded up.
  EXPECT_EQ(rp.next_send_ns(), kT0 + 174);
  rp.on_sent(kT0 + 174, kFrame);
  EXPECT_EQ(rp.next_send_ns(), kT0 + 348);
}

TEST(DcqcnReactionPoint, StormOfCnpsStopsAtTheMinimumRate) {
  DcqcnReactionPoint rp({});
  for (int i = 0; i < 40; ++i) rp.on_cnp(kT0, kCorrect);
  EXPECT_EQ(rp.rate_bps(), 10e6);
  EXPECT_EQ(rp.target_rate_bps(), 10e6);
}

TEST(DcqcnReactionPoint, RateBelowMinimumMutantHasNoFloor) {
  CongestionDecisions broken;
  broken.reaction_point_keeps_minimum.set(false);
  DcqcnReactionPoint rp({});
  for (int i = 0; i < 40; ++i) rp.on_cnp(kT0, broken);
  EXPECT_LT(rp.rate_bps(), 10e6);
  // Thousands more stop at 1 bit/s: the pacer's gap stays finite.
  for (int i = 0; i < 2000; ++i) rp.on_cnp(kT0, broken);
  EXPECT_EQ(rp.rate_bps(), 1.0);
  rp.on_sent(kT0, kFrame);
  EXPECT_EQ(rp.next_send_ns(), kT0 + uint64_t{8656} * 1'000'000'000);
}

TEST(DcqcnReactionPoint, RateTimerRecoversHalfwayToTheTarget) {
  DcqcnReactionPoint rp({});
  rp.on_cnp(kT0, kCorrect);
  rp.catch_up(kT0 + 299'999);
  EXPECT_EQ(rp.rate_bps(), 50e9);
  rp.catch_up(kT0 + 300'000);  // fast recovery: RC = (RT + RC) / 2
  EXPECT_EQ(rp.rate_bps(), 75e9);
  EXPECT_EQ(rp.target_rate_bps(), 100e9);
}

TEST(DcqcnReactionPoint, AdditiveIncreaseAfterFastRecoverySteps) {
  DcqcnParameters p;
  DcqcnReactionPoint rp(p);
  for (int i = 0; i < 40; ++i) rp.on_cnp(kT0, kCorrect);  // RC = RT = 10 Mb/s
  rp.catch_up(kT0 + 4 * p.rate_timer_ns);                 // TC 1..4: fast recovery
  EXPECT_EQ(rp.rate_bps(), 10e6);
  rp.catch_up(kT0 + 5 * p.rate_timer_ns);  // TC 5 = F: additive increase, RT + 5 Mb/s
  EXPECT_EQ(rp.target_rate_bps(), 15e6);
  EXPECT_EQ(rp.rate_bps(), 12.5e6);
}

TEST(DcqcnReactionPoint, ByteCounterStepsTheRate) {
  DcqcnParameters p;
  p.byte_counter = 2 * kFrame;
  DcqcnReactionPoint rp(p);
  rp.on_cnp(kT0, kCorrect);
  rp.on_sent(kT0, kFrame);
  EXPECT_EQ(rp.rate_bps(), 50e9);
  rp.on_sent(kT0 + 174, kFrame);  // BC 1: fast recovery
  EXPECT_EQ(rp.rate_bps(), 75e9);
}

TEST(DcqcnReactionPoint, AlphaDecaysPerAlphaTimerWithoutCnps) {
  DcqcnParameters p;
  DcqcnReactionPoint rp(p);
  rp.on_cnp(kT0, kCorrect);
  rp.catch_up(kT0 + 2 * p.alpha_timer_ns);
  EXPECT_DOUBLE_EQ(rp.alpha(), (1 - p.g) * (1 - p.g));
  const double alpha = rp.alpha();
  rp.on_cnp(kT0 + 2 * p.alpha_timer_ns, kCorrect);  // cut by alpha / 2, a little less than half
  EXPECT_DOUBLE_EQ(rp.rate_bps(), 50e9 * (1 - alpha / 2));
  EXPECT_GT(rp.rate_bps(), 25e9);
}

TEST(DcqcnReactionPoint, RecoversToLineRateAndStopsPacing) {
  DcqcnParameters p;
  DcqcnReactionPoint rp(p);
  rp.on_cnp(kT0, kCorrect);
  rp.catch_up(kT0 + 100 * p.rate_timer_ns);
  EXPECT_EQ(rp.rate_bps(), p.line_rate_bps);
  EXPECT_FALSE(rp.paced());
}

TEST(DcqcnReactionPoint, IgnoresCnpMutantKeepsTheRate) {
  CongestionDecisions broken;
  broken.reaction_point_acts_on_cnp.set(false);
  DcqcnReactionPoint rp({});
  rp.on_cnp(kT0, broken);
  EXPECT_EQ(rp.rate_bps(), 100e9);
}

TEST(DcqcnReactionPoint, ReactsLateMutantCutsOnlyAfterTheDelay) {
  CongestionDecisions broken;
  broken.reaction_point_acts_at_once.set(false);
  DcqcnParameters p;
  DcqcnReactionPoint rp(p);
  rp.on_cnp(kT0, broken);
  rp.catch_up(kT0 + p.late_reaction_ns - 1);
  EXPECT_EQ(rp.rate_bps(), 100e9);
  rp.catch_up(kT0 + p.late_reaction_ns);
  EXPECT_EQ(rp.rate_bps(), 50e9);
}

}  // namespace
}  // namespace mr::transport
