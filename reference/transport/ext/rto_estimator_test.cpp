// File: rto_estimator_test.cpp
#include "reference/transport/ext/rto_estimator.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

TEST(RtoEstimator, UsesTheInitialRtoBeforeTheFirstSample) {
  RtoEstimator rto(RtoBounds{});
  EXPECT_FALSE(rto.has_sample());
  EXPECT_EQ(rto.rto_ns(), 500'000u);
  EXPECT_EQ(rto.srtt_ns(), 50'000u);  // the early-loss wait before a sample: T_EXT_RTO_MIN
}

TEST(RtoEstimator, FollowsRfc6298) {
  RtoEstimator rto(RtoBounds{.initial_ns = 500'000, .min_ns = 1'000, .max_ns = 16'000'000});
  rto.sample(100'000);
  EXPECT_EQ(rto.srtt_ns(), 100'000u);
  EXPECT_EQ(rto.rttvar_ns(), 50'000u);
  EXPECT_EQ(rto.rto_ns(), 300'000u);  // 100 + 4 x 50 us
  rto.sample(20'000);
  EXPECT_EQ(rto.rttvar_ns(), 57'500u);  // 3/4 x 50 + 1/4 x 80
  EXPECT_EQ(rto.srtt_ns(), 90'000u);    // 7/8 x 100 + 1/8 x 20
  EXPECT_EQ(rto.rto_ns(), 320'000u);
}

TEST(RtoEstimator, KeepsTheSmallestSample) {
  RtoEstimator rto({});
  EXPECT_EQ(rto.min_rtt_ns(), 0u);
  rto.sample(30'000);
  rto.sample(12'000);
  rto.sample(50'000);
  EXPECT_EQ(rto.min_rtt_ns(), 12'000u);
}

TEST(RtoEstimator, ClampsToTheBounds) {
  RtoEstimator rto(RtoBounds{});
  rto.sample(1'000);  // 1 us + 4 x 0.5 us: below T_EXT_RTO_MIN
  EXPECT_EQ(rto.rto_ns(), 50'000u);
  RtoEstimator slow(RtoBounds{});
  slow.sample(10'000'000);  // 10 ms + 4 x 5 ms: above T_EXT_RTO_MAX
  EXPECT_EQ(slow.rto_ns(), 16'000'000u);
}

TEST(RtoEstimator, EachConsecutiveTimeoutDoublesUpToTheMaximum) {
  RtoEstimator rto(RtoBounds{});
  EXPECT_EQ(rto.backed_off(0), 500'000u);
  EXPECT_EQ(rto.backed_off(1), 1'000'000u);
  EXPECT_EQ(rto.backed_off(5), 16'000'000u);
  EXPECT_EQ(rto.backed_off(60), 16'000'000u);  // no overflow
}

}  // namespace
}  // namespace mr::transport::ext
