// first_difference: where two byte strings part, counted as a reader needs it.
#include "harness/engine/byte_difference.h"

#include <gtest/gtest.h>

#include <vector>

namespace mr::engine {
namespace {

TEST(ByteDifference, EqualStringsHaveNone) {
  const std::vector<uint8_t> a{1, 2, 3};
  EXPECT_FALSE(first_difference(a, a).has_value());
  EXPECT_FALSE(first_difference({}, {}).has_value());
}

TEST(ByteDifference, NamesTheFirstDifferingByteAndCountsTheRest) {
  std::vector<uint8_t> want(64, 0x41);
  std::vector<uint8_t> got = want;
  got[40] = 0;
  got[41] = 0;
  got[63] = 0;
  const auto d = first_difference(want, got, 4);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->first, 40U);
  EXPECT_EQ(d->differing, 3U);
  EXPECT_EQ(d->expected, "41414141");
  EXPECT_EQ(d->actual, "00004141");
  EXPECT_EQ(d->summary(want.size()), "from byte 40: 3 of 64 bytes differ; bytes from there shown");
}

TEST(ByteDifference, AShorterStringDiffersWhereItEnds) {
  const std::vector<uint8_t> want{1, 2, 3, 4};
  const std::vector<uint8_t> got{1, 2};
  const auto d = first_difference(want, got);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->first, 2U);
  EXPECT_EQ(d->differing, 2U);
  EXPECT_EQ(d->expected, "0304");
  EXPECT_EQ(d->actual, "(ends at byte 2)");
}

}  // namespace
}  // namespace mr::engine
