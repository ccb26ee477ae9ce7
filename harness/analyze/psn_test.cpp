#include "harness/analyze/psn.h"

#include <gtest/gtest.h>

namespace mr::analyze {
namespace {

TEST(Psn, DiffWraps) {
  EXPECT_EQ(psn_diff(0x000001, 0xffffff), 2);
  EXPECT_EQ(psn_diff(0xffffff, 0x000001), -2);
  EXPECT_EQ(psn_diff(5, 5), 0);
  EXPECT_EQ(psn_add(0xffffff, 1), 0u);
  EXPECT_EQ(psn_add(0, -1), 0xffffffu);
}

}  // namespace
}  // namespace mr::analyze
