#include "reference/error/expected.h"

#include <gtest/gtest.h>

#include <string>

namespace mr {
namespace {

Expected<int, std::string> ParsePositive(int v) {
  if (v <= 0) return Unexpected(std::string("not positive"));
  return v;
}

TEST(Expected, HoldsValueOnSuccess) {
  auto r = ParsePositive(7);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 7);
}

TEST(Expected, HoldsErrorOnFailure) {
  auto r = ParsePositive(-1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "not positive");
  EXPECT_EQ(r.value_or(3), 3);
}

TEST(Expected, VoidSpecialisationCarriesError) {
  Expected<void, std::string> ok;
  EXPECT_TRUE(ok.has_value());
  Expected<void, std::string> bad = Unexpected(std::string("boom"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "boom");
}

TEST(Expected, EqualityComparesValuesAndErrors) {
  EXPECT_EQ(ParsePositive(3), ParsePositive(3));
  EXPECT_FALSE(ParsePositive(3) == ParsePositive(4));
  EXPECT_EQ(ParsePositive(-1), ParsePositive(-2));  // the same error
  EXPECT_FALSE(ParsePositive(3) == ParsePositive(-1));
}

}  // namespace
}  // namespace mr
