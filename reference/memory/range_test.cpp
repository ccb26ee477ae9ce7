#include "reference/memory/range.h"

#include <gtest/gtest.h>

#include <limits>

namespace mr::memory {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(Range, LastByteInsideFirstByteOutside) {
  EXPECT_EQ(offset_within(0x1000, 0x100, 0x10ff, 1), 0xff);
  EXPECT_EQ(offset_within(0x1000, 0x100, 0x1000, 0x100), 0);
  EXPECT_FALSE(offset_within(0x1000, 0x100, 0x1100, 1));
  EXPECT_FALSE(offset_within(0x1000, 0x100, 0x1000, 0x101));
  EXPECT_FALSE(offset_within(0x1000, 0x100, 0x0fff, 1));
}

TEST(Range, EndWrappingPast2To64IsOutside) {
  EXPECT_FALSE(offset_within(0x1000, 0x100, 0x1010, kMax));
  EXPECT_FALSE(offset_within(0x1000, 0x100, kMax, 2));
  EXPECT_FALSE(offset_within(kMax - 0xff, 0x100, kMax, 2));
  EXPECT_EQ(offset_within(kMax - 0xff, 0x100, kMax, 1), 0xff);
}

TEST(Range, EmptyRangeAtTheEdges) {
  EXPECT_EQ(offset_within(0x1000, 0x100, 0x1100, 0), 0x100);
  EXPECT_FALSE(offset_within(0x1000, 0x100, 0x1101, 0));
  EXPECT_EQ(offset_within(0, 0, 0, 0), 0);
}

static_assert(offset_within(10, 10, 19, 1) == 9);
static_assert(!offset_within(10, 10, 20, 1));

}  // namespace
}  // namespace mr::memory
