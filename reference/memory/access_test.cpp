#include "reference/memory/access.h"

#include <gtest/gtest.h>

#include <set>

namespace mr::memory {
namespace {

TEST(Access, ValuesAreThoseOfIbvAccessFlags) {
  EXPECT_EQ(kLocalWrite, 1u);
  EXPECT_EQ(kRemoteWrite, 2u);
  EXPECT_EQ(kRemoteRead, 4u);
  EXPECT_EQ(kRemoteAtomic, 8u);
  EXPECT_EQ(kMwBind, 16u);
  EXPECT_EQ(kZeroBased, 32u);
}

TEST(Access, GrantsNeedsEveryRequiredBit) {
  EXPECT_TRUE(grants(kLocalWrite | kRemoteRead, kRemoteRead));
  EXPECT_TRUE(grants(kRemoteRead, 0));
  EXPECT_FALSE(grants(kRemoteRead, kRemoteWrite));
  EXPECT_FALSE(grants(kLocalWrite | kRemoteWrite, kRemoteWrite | kRemoteRead));
}

TEST(Access, EveryErrorHasItsOwnName) {
  std::set<std::string_view> names;
  for (auto e : {AccessError::kInvalidKey, AccessError::kWrongPd, AccessError::kNotPermitted,
                 AccessError::kOutOfRange, AccessError::kInvalidated, AccessError::kMisaligned}) {
    names.insert(to_string(e));
  }
  EXPECT_EQ(names.size(), kAccessErrorCount);
}

// Every combination of the six flags: only remote write or atomic without local write, as in
// verbs, is refused.
TEST(Access, CheckMrAccessOverAllCombinations) {
  for (uint32_t access = 0; access <= kAllAccess; ++access) {
    const bool needs_local = (access & (kRemoteWrite | kRemoteAtomic)) != 0;
    const bool ok = !needs_local || (access & kLocalWrite) != 0;
    EXPECT_EQ(!check_mr_access(access).has_value(), ok) << "access " << access;
  }
}

TEST(Access, UnknownBitsAreRefusedAndNamed) {
  auto why = check_mr_access(kLocalWrite | 0x100);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("0x100"), std::string::npos) << *why;
}

}  // namespace
}  // namespace mr::memory
