// SEND_WITH_INVALIDATE (MR-MP-09) and LOCAL_INV of memory regions; windows are in
// memory_window_test.cpp.
#include <gtest/gtest.h>

#include <vector>

#include "reference/memory/memory_table.h"

namespace mr::memory {
namespace {

constexpr uint64_t kVa = 0x20000000;

class Invalidate : public ::testing::Test {
 protected:
  void SetUp() override {
    pd_ = *table_.alloc_pd();
    other_pd_ = *table_.alloc_pd();
    mr_ = *table_.reg_mr(pd_, 128, kLocalWrite | kRemoteWrite | kRemoteRead, kVa);
  }

  MemoryTable table_{77};
  uint32_t pd_ = 0;
  uint32_t other_pd_ = 0;
  MrInfo mr_{};
};

// MR-MP-09: after the invalidation a WRITE with the key fails (NAK 0x62), and so does every
// use of the region's L_Key; the owner can still read what is there.
TEST_F(Invalidate, InvalidatedRegionRefusesBothKeys) {
  ASSERT_TRUE(table_.write(mr_.lkey, kVa, std::vector<uint8_t>{7}));
  ASSERT_TRUE(table_.invalidate_rkey(mr_.rkey, pd_));
  auto remote = table_.resolve_remote(mr_.rkey, pd_, kVa, 8, kRemoteWrite);
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error(), AccessError::kInvalidated);
  auto local = table_.resolve_local(mr_.lkey, pd_, kVa, 8, 0);
  ASSERT_FALSE(local);
  EXPECT_EQ(local.error(), AccessError::kInvalidated);
  EXPECT_EQ(table_.read(mr_.lkey, kVa, 1)->at(0), 7);
  EXPECT_EQ(table_.counters().invalidations, 1u);
  EXPECT_EQ(table_.counters().remote_failed(AccessError::kInvalidated), 1u);
}

TEST_F(Invalidate, SecondInvalidationFails) {
  ASSERT_TRUE(table_.invalidate_rkey(mr_.rkey, pd_));
  auto again = table_.invalidate_rkey(mr_.rkey, pd_);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), AccessError::kInvalidated);
  EXPECT_EQ(table_.counters().invalidations, 1u);
}

TEST_F(Invalidate, UnknownKeyOtherPdAndLKeyAreRefused) {
  auto unknown = table_.invalidate_rkey(mr_.rkey + 1, pd_);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(), AccessError::kInvalidKey);
  auto other = table_.invalidate_rkey(mr_.rkey, other_pd_);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error(), AccessError::kWrongPd);
  // An IETH carries an R_Key; the L_Key never left the device.
  auto lkey = table_.invalidate_rkey(mr_.lkey, pd_);
  ASSERT_FALSE(lkey);
  EXPECT_EQ(lkey.error(), AccessError::kInvalidKey);
  EXPECT_TRUE(table_.resolve_remote(mr_.rkey, pd_, kVa, 1, kRemoteRead));
}

// The responder's check when a SEND with invalidate arrives: the same answers as
// invalidate_rkey, and nothing changes.
TEST_F(Invalidate, MayInvalidateAnswersAsInvalidateWouldAndChangesNothing) {
  EXPECT_TRUE(table_.may_invalidate_rkey(mr_.rkey, pd_));
  EXPECT_TRUE(table_.may_invalidate_rkey(mr_.rkey, pd_)) << "asking twice is still yes";
  EXPECT_TRUE(table_.resolve_remote(mr_.rkey, pd_, kVa, 1, kRemoteRead));
  EXPECT_EQ(table_.counters().invalidations, 0u);
  EXPECT_EQ(table_.may_invalidate_rkey(mr_.rkey + 1, pd_).error(), AccessError::kInvalidKey);
  EXPECT_EQ(table_.may_invalidate_rkey(mr_.lkey, pd_).error(), AccessError::kInvalidKey);
  EXPECT_EQ(table_.may_invalidate_rkey(mr_.rkey, other_pd_).error(), AccessError::kWrongPd);
  ASSERT_TRUE(table_.invalidate_rkey(mr_.rkey, pd_));
  EXPECT_EQ(table_.may_invalidate_rkey(mr_.rkey, pd_).error(), AccessError::kInvalidated);
}

TEST_F(Invalidate, LocalInvalidateTakesEitherKey) {
  ASSERT_TRUE(table_.local_invalidate(mr_.lkey, pd_));
  EXPECT_EQ(table_.resolve_remote(mr_.rkey, pd_, kVa, 1, kRemoteRead).error(),
            AccessError::kInvalidated);
  auto mr2 = *table_.reg_mr(pd_, 64, kRemoteRead, kVa);
  ASSERT_TRUE(table_.local_invalidate(mr2.rkey, pd_));
  EXPECT_EQ(table_.local_invalidate(mr2.lkey, pd_).error(), AccessError::kInvalidated);
  EXPECT_EQ(table_.local_invalidate(0, pd_).error(), AccessError::kInvalidKey);
  EXPECT_EQ(table_.local_invalidate(mr2.lkey, other_pd_).error(), AccessError::kWrongPd);
}

// Reuse after invalidation: the region is deregistered and registered again; the new keys
// work, the old ones never come back.
TEST_F(Invalidate, ReuseAfterInvalidationGetsNewKeys) {
  ASSERT_TRUE(table_.invalidate_rkey(mr_.rkey, pd_));
  ASSERT_TRUE(table_.dereg_mr(mr_.lkey));
  auto again = table_.reg_mr(pd_, 128, kLocalWrite | kRemoteWrite | kRemoteRead, kVa);
  ASSERT_TRUE(again);
  EXPECT_NE(again->rkey, mr_.rkey);
  EXPECT_NE(again->lkey, mr_.lkey);
  EXPECT_TRUE(table_.resolve_remote(again->rkey, pd_, kVa, 128, kRemoteWrite));
  EXPECT_EQ(table_.resolve_remote(mr_.rkey, pd_, kVa, 128, kRemoteWrite).error(),
            AccessError::kInvalidKey);
}

// rxe_invalidate_mr: a region with windows bound to it stays valid.
TEST_F(Invalidate, RegionWithABoundWindowCannotBeInvalidated) {
  auto mr = *table_.reg_mr(pd_, 64, kLocalWrite | kMwBind, 0x9000);
  const uint32_t mw = *table_.alloc_mw(pd_);
  ASSERT_TRUE(table_.bind_mw(mw, mr.lkey, 0x9000, 64, kRemoteRead));
  auto busy = table_.invalidate_rkey(mr.rkey, pd_);
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error(), AccessError::kNotPermitted);
  EXPECT_TRUE(table_.resolve_local(mr.lkey, pd_, 0x9000, 64, kLocalWrite));
}

}  // namespace
}  // namespace mr::memory
