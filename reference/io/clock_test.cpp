#include "reference/io/clock.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mr::io
