#include "reference/io/clock.h"

#include <gtest/gtest.h>

#include "reference/io/dilated_clock.h"

namespace mr::io {
namespace {

TEST(VirtualClock, MovesOnlyWhenTold) {
  VirtualClock clock(100);
  EXPECT_EQ(clock.now_ns(), 100U);
  EXPECT_EQ(clock.now_ns(), 100U);
  clock.advance(50);
  EXPECT_EQ(clock.now_ns(), 150U);
  clock.set(1'000'000);
  EXPECT_EQ(clock.now_ns(), 1'000'000U);
  EXPECT_TRUE(clock.is_virtual());
}

TEST(SystemClock, IsMonotonicAndReal) {
  SystemClock clock;
  const uint64_t a = clock.now_ns();
  const uint64_t b = clock.now_ns();
  EXPECT_LE(a, b);
  EXPECT_GT(a, 0U);
  EXPECT_FALSE(clock.is_virtual());
}

TEST(DilatedClock, RunsFactorTimesSlowerFromWhereItStarts) {
  VirtualClock wall(1'000'000);
  DilatedClock bed(wall, 20);
  EXPECT_EQ(bed.now_ns(), 1'000'000U) << "both agree at the start";
  wall.advance(2'000'000);
  EXPECT_EQ(bed.now_ns(), 1'100'000U) << "2 ms of wall time is 100 us of dilated time";
  EXPECT_EQ(bed.real_duration_ns(50'000), 1'000'000U);
  EXPECT_EQ(bed.real_duration_ns(UINT64_MAX / 4), UINT64_MAX) << "saturates";
  EXPECT_EQ(wall.real_duration_ns(50'000), 50'000U) << "an undilated clock waits as it says";
}

TEST(TimeDilation, MapsTimesBeforeTheOriginToo) {
  const TimeDilation d(10, 1'000);
  EXPECT_EQ(d.dilated(1'000), 1'000U);
  EXPECT_EQ(d.dilated(1'100), 1'010U);
  EXPECT_EQ(d.dilated(900), 990U) << "a frame stamped just before the origin";
  EXPECT_EQ(TimeDilation(0, 5).factor(), 1U) << "no factor is no dilation";
}

}  // namespace
}  // namespace mr::io
