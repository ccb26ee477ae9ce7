#include "reference/wire/psn.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace mr::wire {
namespace {

TEST(Psn, DiffWraps) {
  EXPECT_EQ(psn_diff(0x000001, 0xffffff), 2);
  EXPECT_EQ(psn_diff(0xffffff, 0x000001), -2);
  EXPECT_EQ(psn_diff(5, 5), 0);
}

TEST(Psn, AddWrapsAtTwoToTheTwentyFour) {
  EXPECT_EQ(psn_add(0xffffff, 1), 0u);
  EXPECT_EQ(psn_add(0, -1), 0xffffffu);
  EXPECT_EQ(psn_add(0xfffff0, 0x20), 0x10u);
  EXPECT_EQ(psn_add(7, int64_t{1} << 24), 7u);  // a whole turn is no distance
}

TEST(Psn, DiffIsSignedWithinHalfTheSpace) {
  EXPECT_EQ(psn_diff(0x7fffff, 0), 0x7fffff);   // 2^23 - 1 ahead: the farthest "after"
  EXPECT_EQ(psn_diff(0x800000, 0), -0x800000);  // 2^23 away counts as behind
  EXPECT_EQ(psn_diff(0, 0x800000), -0x800000);
  EXPECT_EQ(psn_diff(0x123456, 0x123455), 1);
}

TEST(Psn, DiffIgnoresBitsAboveTwentyFour) {
  EXPECT_EQ(psn_diff(0x01000005, 5), 0);
  EXPECT_EQ(psn_diff(0xff000001, 0x00ffffff), 2);
}

TEST(Psn, AddThenDiffRoundTrips) {
  for (const uint32_t base : {0u, 1u, 0x7fffffu, 0x800000u, 0xfffffeu, 0xffffffu}) {
    for (const int64_t n :
         {int64_t{-0x800000}, int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{0x7fffff}}) {
      EXPECT_EQ(psn_diff(psn_add(base, n), base), n) << base << " + " << n;
    }
  }
}

}  // namespace
}  // namespace mr::wire
