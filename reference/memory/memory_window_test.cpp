// Type-2 memory windows: bind, access through the window's R_Key, invalidation and rebind.
#include <gtest/gtest.h>

#include <vector>

#include "reference/memory/memory_table.h"

namespace mr::memory {
namespace {

constexpr uint64_t kVa = 0x30000000;
constexpr uint64_t kLength = 4096;

class MemoryWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    pd_ = *table_.alloc_pd();
    other_pd_ = *table_.alloc_pd();
    mr_ = *table_.reg_mr(pd_, kLength, kLocalWrite | kMwBind, kVa);
    mw_ = *table_.alloc_mw(pd_);
  }

  AccessError bind_error(uint32_t mw, uint32_t lkey, uint64_t va, uint64_t length, uint32_t access,
                         std::optional<uint32_t> qp_pd = {}) {
    auto r = table_.bind_mw(mw, lkey, va, length, access, qp_pd);
    EXPECT_FALSE(r) << "bound unexpectedly";
    return r ? AccessError::kMisaligned : r.error();
  }

  MemoryTable table_{31337};
  uint32_t pd_ = 0;
  uint32_t other_pd_ = 0;
  MrInfo mr_{};
  uint32_t mw_ = 0;
};

TEST_F(MemoryWindow, BoundWindowGrantsItsRangeOnly) {
  auto rkey = table_.bind_mw(mw_, mr_.lkey, kVa + 256, 128, kRemoteWrite | kRemoteRead);
  ASSERT_TRUE(rkey);
  EXPECT_NE(*rkey, 0u);
  EXPECT_NE(*rkey, mr_.rkey);
  ASSERT_TRUE(table_.write(mr_.lkey, kVa + 256, std::vector<uint8_t>{0x42}));
  auto bytes = table_.resolve_remote(*rkey, pd_, kVa + 256, 128, kRemoteRead);
  ASSERT_TRUE(bytes);
  EXPECT_EQ((*bytes)[0], 0x42);
  EXPECT_TRUE(table_.resolve_remote(*rkey, pd_, kVa + 383, 1, kRemoteWrite));
  EXPECT_EQ(table_.resolve_remote(*rkey, pd_, kVa + 384, 1, kRemoteWrite).error(),
            AccessError::kOutOfRange);
  EXPECT_EQ(table_.resolve_remote(*rkey, pd_, kVa + 255, 1, kRemoteWrite).error(),
            AccessError::kOutOfRange);
  // The window's rights, not the region's: no atomic.
  EXPECT_EQ(table_.resolve_remote(*rkey, pd_, kVa + 256, 8, kRemoteAtomic).error(),
            AccessError::kNotPermitted);
  EXPECT_EQ(table_.resolve_remote(*rkey, other_pd_, kVa + 256, 8, kRemoteRead).error(),
            AccessError::kWrongPd);
  // The region's own R_Key grants nothing remote: the window is the only way in.
  EXPECT_EQ(table_.resolve_remote(mr_.rkey, pd_, kVa + 256, 8, kRemoteRead).error(),
            AccessError::kNotPermitted);
  auto info = table_.query_mw(mw_);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->bound);
  EXPECT_EQ(info->rkey, *rkey);
  EXPECT_EQ(info->mr_lkey, mr_.lkey);
}

TEST_F(MemoryWindow, ZeroBasedWindowIsAddressedFromZero) {
  auto rkey = table_.bind_mw(mw_, mr_.lkey, kVa + 64, 32, kRemoteRead | kZeroBased);
  ASSERT_TRUE(rkey);
  ASSERT_TRUE(table_.write(mr_.lkey, kVa + 64 + 31, std::vector<uint8_t>{9}));
  auto last = table_.resolve_remote(*rkey, pd_, 31, 1, kRemoteRead);
  ASSERT_TRUE(last);
  EXPECT_EQ((*last)[0], 9);
  EXPECT_EQ(table_.resolve_remote(*rkey, pd_, 32, 1, kRemoteRead).error(),
            AccessError::kOutOfRange);
  EXPECT_EQ(table_.resolve_remote(*rkey, pd_, kVa + 64, 1, kRemoteRead).error(),
            AccessError::kOutOfRange);
}

TEST_F(MemoryWindow, BindErrors) {
  EXPECT_EQ(bind_error(mw_ + 100, mr_.lkey, kVa, 8, kRemoteRead), AccessError::kInvalidKey);
  EXPECT_EQ(bind_error(mw_, mr_.lkey + 1, kVa, 8, kRemoteRead), AccessError::kInvalidKey);
  EXPECT_EQ(bind_error(mw_, mr_.rkey, kVa, 8, kRemoteRead), AccessError::kInvalidKey);
  EXPECT_EQ(bind_error(mw_, mr_.lkey, kVa, 0, kRemoteRead), AccessError::kOutOfRange);
  EXPECT_EQ(bind_error(mw_, mr_.lkey, kVa + kLength - 4, 8, kRemoteRead), AccessError::kOutOfRange);
  EXPECT_EQ(bind_error(mw_, mr_.lkey, kVa - 1, 8, kRemoteRead), AccessError::kOutOfRange);
  EXPECT_EQ(bind_error(mw_, mr_.lkey, kVa, 8, kRemoteRead | 0x80), AccessError::kNotPermitted);
  EXPECT_EQ(bind_error(mw_, mr_.lkey, kVa, 8, kRemoteRead, other_pd_), AccessError::kWrongPd);
  // A window of another PD than the region's.
  const uint32_t foreign = *table_.alloc_mw(other_pd_);
  EXPECT_EQ(bind_error(foreign, mr_.lkey, kVa, 8, kRemoteRead), AccessError::kWrongPd);
  // A region registered without kMwBind.
  auto plain = *table_.reg_mr(pd_, 64, kLocalWrite | kRemoteRead, 0x1000);
  EXPECT_EQ(bind_error(mw_, plain.lkey, 0x1000, 8, kRemoteRead), AccessError::kNotPermitted);
  // Remote write through a window needs a region the owner may write.
  auto read_only = *table_.reg_mr(pd_, 64, kMwBind, 0x2000);
  EXPECT_EQ(bind_error(mw_, read_only.lkey, 0x2000, 8, kRemoteWrite), AccessError::kNotPermitted);
  EXPECT_EQ(bind_error(mw_, read_only.lkey, 0x2000, 8, kRemoteAtomic), AccessError::kNotPermitted);
  EXPECT_TRUE(table_.bind_mw(mw_, read_only.lkey, 0x2000, 8, kRemoteRead, pd_));
  // An invalidated region.
  auto gone = *table_.reg_mr(pd_, 64, kLocalWrite | kMwBind, 0x3000);
  ASSERT_TRUE(table_.local_invalidate(gone.lkey, pd_));
  const uint32_t mw2 = *table_.alloc_mw(pd_);
  EXPECT_EQ(bind_error(mw2, gone.lkey, 0x3000, 8, kRemoteRead), AccessError::kInvalidated);
}

// o10-36.2.2: a bound type-2 window is invalidated before it is bound again.
TEST_F(MemoryWindow, BoundWindowCannotBeBoundAgain) {
  ASSERT_TRUE(table_.bind_mw(mw_, mr_.lkey, kVa, 8, kRemoteRead));
  EXPECT_EQ(bind_error(mw_, mr_.lkey, kVa, 16, kRemoteRead), AccessError::kNotPermitted);
}

// MR-MP-09 on a window, then reuse: the rebind gives a new R_Key, the old one stays dead.
TEST_F(MemoryWindow, InvalidateThenRebindGivesANewKey) {
  const uint32_t first = *table_.bind_mw(mw_, mr_.lkey, kVa, 64, kRemoteWrite);
  EXPECT_EQ(table_.invalidate_rkey(first, other_pd_).error(), AccessError::kWrongPd);
  ASSERT_TRUE(table_.invalidate_rkey(first, pd_));
  EXPECT_EQ(table_.resolve_remote(first, pd_, kVa, 8, kRemoteWrite).error(),
            AccessError::kInvalidated);
  EXPECT_EQ(table_.invalidate_rkey(first, pd_).error(), AccessError::kInvalidated);
  EXPECT_FALSE(table_.query_mw(mw_)->bound);
  // The region is free again.
  EXPECT_TRUE(table_.resolve_local(mr_.lkey, pd_, kVa, 8, kLocalWrite));

  const uint32_t second = *table_.bind_mw(mw_, mr_.lkey, kVa + 64, 64, kRemoteRead);
  EXPECT_NE(second, first);
  EXPECT_TRUE(table_.resolve_remote(second, pd_, kVa + 64, 64, kRemoteRead));
  EXPECT_EQ(table_.resolve_remote(first, pd_, kVa, 8, kRemoteWrite).error(),
            AccessError::kInvalidKey);
  EXPECT_EQ(table_.counters().mw_binds, 2u);
}

TEST_F(MemoryWindow, BoundWindowPinsItsRegionAndPd) {
  ASSERT_TRUE(table_.bind_mw(mw_, mr_.lkey, kVa, 8, kRemoteRead));
  EXPECT_FALSE(table_.dereg_mr(mr_.lkey));
  EXPECT_FALSE(table_.dealloc_pd(pd_));
  // Deallocating a bound window unbinds it and kills its key.
  const uint32_t rkey = table_.query_mw(mw_)->rkey;
  ASSERT_TRUE(table_.dealloc_mw(mw_));
  EXPECT_FALSE(table_.dealloc_mw(mw_));
  EXPECT_FALSE(table_.query_mw(mw_));
  EXPECT_EQ(table_.resolve_remote(rkey, pd_, kVa, 8, kRemoteRead).error(),
            AccessError::kInvalidKey);
  EXPECT_TRUE(table_.dereg_mr(mr_.lkey));
  EXPECT_TRUE(table_.dealloc_pd(pd_));
  EXPECT_EQ(table_.counters().mws_live, 0u);
}

TEST_F(MemoryWindow, UnboundWindowHasNoKeyAndUnknownPdIsRefused) {
  auto info = table_.query_mw(mw_);
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->bound);
  EXPECT_EQ(info->rkey, 0u);
  EXPECT_FALSE(table_.alloc_mw(9999));
}

}  // namespace
}  // namespace mr::memory
