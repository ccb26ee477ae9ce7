// File: goodput_timeline_test.cpp
#include "reference/testbed/goodput_timeline.h"

#include <gtest/gtest.h>

#include <vector>

namespace mr::testbed {
namespace {

constexpr uint64_t kBin = 1'000;  // 1 us

// Cumulative bytes from per-bin deltas.
std::vector<uint64_t> cumulative(std::initializer_list<uint64_t> per_bin) {
  std::vector<uint64_t> v{0};
  for (uint64_t d : per_bin) v.push_back(v.back() + d);
  return v;
}

TEST(GoodputTimeline, RateIsTheBytesBetweenTwoSamplesOverTheirDistance) {
  const auto s = cumulative({1000, 1000, 3000, 3000});
  const GoodputTimeline t(s, kBin);
  EXPECT_DOUBLE_EQ(t.rate_bps(0, 2 * kBin), 8e9);           // 2,000 bytes in 2 us
  EXPECT_DOUBLE_EQ(t.rate_bps(2 * kBin, 4 * kBin), 24e9);   // 6,000 bytes in 2 us
  EXPECT_DOUBLE_EQ(t.rate_bps(2 * kBin, 99 * kBin), 24e9);  // clipped to the last sample
  EXPECT_EQ(t.rate_bps(3 * kBin, 3 * kBin + 500), 0);       // no whole bin
  EXPECT_EQ(t.end_ns(), 4 * kBin);
}

TEST(GoodputTimeline, RecoveryIsWhereTheRateCameBackAndStayed) {
  // 8 Gb/s, a failure at 2 us (nothing for two bins), one spike, then 8 Gb/s again at 7 us.
  const auto s = cumulative({1000, 1000, 0, 0, 1000, 0, 0, 1000, 1000, 1000, 1000, 1000, 1000});
  const GoodputTimeline t(s, kBin);
  EXPECT_EQ(t.recovered_at(2 * kBin, 13 * kBin, 8e9, /*window=*/2), 7 * kBin);
  // The spike at 4 us is a recovery only when a window of one bin is enough, and even then
  // the dip after it moves the recovery to 7 us.
  EXPECT_EQ(t.recovered_at(2 * kBin, 13 * kBin, 8e9, /*window=*/1), 7 * kBin);
  // Half the rate over 4-bin windows: [4, 8) holds 2,000 bytes (4 Gb/s), [3, 7) only 1,000.
  EXPECT_EQ(t.recovered_at(2 * kBin, 13 * kBin, 4e9, /*window=*/4), 4 * kBin);
  EXPECT_EQ(t.recovered_at(2 * kBin, 13 * kBin, 9e9), std::nullopt);  // never that fast
  EXPECT_EQ(t.recovered_at(0, 13 * kBin, 8e9, 2), 7 * kBin);          // the dip counts
}

TEST(GoodputTimeline, ABinThatNeverDippedIsRecoveredAtOnce) {
  const auto s = cumulative({1000, 1000, 1000, 1000, 1000, 1000});
  const GoodputTimeline t(s, kBin);
  EXPECT_EQ(t.recovered_at(1 * kBin + 1, 6 * kBin, 8e9, 2), 2 * kBin);  // the next boundary
  EXPECT_EQ(t.recovered_at(5 * kBin, 6 * kBin, 8e9, 2), std::nullopt);  // no whole window left
}

TEST(GoodputTimeline, ReachedIsTheFirstSampleWithThatManyBytes) {
  const auto s = cumulative({1000, 1000, 1000});
  const GoodputTimeline t(s, kBin);
  EXPECT_EQ(t.reached(0), 0u);
  EXPECT_EQ(t.reached(1500), 2 * kBin);
  EXPECT_EQ(t.reached(3001), std::nullopt);
}

TEST(GoodputTimeline, LastGrowthIsTheSampleAfterWhichTheCountStopped) {
  EXPECT_EQ(GoodputTimeline(cumulative({0, 5, 0, 2, 0, 0}), kBin).last_growth(), 4 * kBin);
  EXPECT_EQ(GoodputTimeline(cumulative({0, 0}), kBin).last_growth(), std::nullopt);
}

TEST(GoodputTimeline, NoSamplesMeansNoRateAndNoRecovery) {
  const std::vector<uint64_t> none;
  const GoodputTimeline t(none, kBin);
  EXPECT_EQ(t.rate_bps(0, 10 * kBin), 0);
  EXPECT_EQ(t.recovered_at(0, 10 * kBin, 1), std::nullopt);
  EXPECT_EQ(t.end_ns(), 0);
  EXPECT_EQ(t.last_growth(), std::nullopt);
  const std::vector<uint64_t> some = cumulative({1000});
  EXPECT_EQ(GoodputTimeline(some, 0).rate_bps(0, 10), 0) << "a 0 ns bin holds nothing";
}

}  // namespace
}  // namespace mr::testbed
