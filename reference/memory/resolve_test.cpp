// The responder's and the SGE checks: every AccessError, boundaries, zero length, PDs,
// access flag combinations, counters.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "reference/memory/memory_table.h"

namespace mr::memory {
namespace {

constexpr uint64_t kVa = 0x10000000;
constexpr uint64_t kLength = 4096;

class Resolve : public ::testing::Test {
 protected:
  void SetUp() override {
    pd_ = *table_.alloc_pd();
    other_pd_ = *table_.alloc_pd();
    auto mr = table_.reg_mr(pd_, kLength, kLocalWrite | kRemoteWrite | kRemoteRead, kVa);
    ASSERT_TRUE(mr) << mr.error();
    mr_ = *mr;
  }

  AccessError remote_error(uint32_t rkey, uint32_t pd, uint64_t va, uint64_t length,
                           uint32_t access) {
    auto r = table_.resolve_remote(rkey, pd, va, length, access);
    EXPECT_FALSE(r) << "resolved unexpectedly";
    return r ? AccessError::kMisaligned : r.error();
  }

  MemoryTable table_{0x1234};
  uint32_t pd_ = 0;
  uint32_t other_pd_ = 0;
  MrInfo mr_{};
};

TEST_F(Resolve, WholeRegionResolvesToItsStorage) {
  ASSERT_TRUE(table_.write(mr_.lkey, kVa + 10, std::vector<uint8_t>{0xab}));
  auto bytes = table_.resolve_remote(mr_.rkey, pd_, kVa, kLength, kRemoteRead);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), kLength);
  EXPECT_EQ((*bytes)[10], 0xab);
  (*bytes)[11] = 0xcd;  // what a WRITE does
  EXPECT_EQ(table_.read(mr_.lkey, kVa + 11, 1)->at(0), 0xcd);
}

// MR-MP-01
TEST_F(Resolve, UnknownKeyIsInvalid) {
  EXPECT_EQ(remote_error(mr_.rkey ^ 1, pd_, kVa, 1, kRemoteRead), AccessError::kInvalidKey);
  EXPECT_EQ(remote_error(0, pd_, kVa, 1, kRemoteRead), AccessError::kInvalidKey);
}

// An L_Key never works as an R_Key, nor an R_Key in an SGE.
TEST_F(Resolve, KeysAreNotInterchangeable) {
  EXPECT_EQ(remote_error(mr_.lkey, pd_, kVa, 1, kRemoteRead), AccessError::kInvalidKey);
  auto local = table_.resolve_local(mr_.rkey, pd_, kVa, 1, 0);
  ASSERT_FALSE(local);
  EXPECT_EQ(local.error(), AccessError::kInvalidKey);
}

// MR-MP-03
TEST_F(Resolve, OtherPdIsRefused) {
  EXPECT_EQ(remote_error(mr_.rkey, other_pd_, kVa, 1, kRemoteRead), AccessError::kWrongPd);
  auto local = table_.resolve_local(mr_.lkey, other_pd_, kVa, 1, 0);
  ASSERT_FALSE(local);
  EXPECT_EQ(local.error(), AccessError::kWrongPd);
}

// MR-MP-04, MR-AT-05: every combination of region access and required remote access.
TEST_F(Resolve, AccessFlagCombinations) {
  for (uint32_t access = 0; access <= kAllAccess; ++access) {
    if (check_mr_access(access) || (access & kZeroBased) != 0) continue;
    auto mr = table_.reg_mr(pd_, 64, access, 0x5000);
    ASSERT_TRUE(mr);
    for (uint32_t required : {kRemoteRead, kRemoteWrite, kRemoteAtomic}) {
      auto r = table_.resolve_remote(mr->rkey, pd_, 0x5000, 8, required);
      EXPECT_EQ(r.has_value(), (access & required) != 0)
          << "access " << access << " required " << required;
      if (!r) {
        EXPECT_EQ(r.error(), AccessError::kNotPermitted);
      }
    }
    auto scatter = table_.resolve_local(mr->lkey, pd_, 0x5000, 8, kLocalWrite);
    EXPECT_EQ(scatter.has_value(), (access & kLocalWrite) != 0) << "access " << access;
    EXPECT_TRUE(table_.resolve_local(mr->lkey, pd_, 0x5000, 8, 0));  // gather: always
    ASSERT_TRUE(table_.dereg_mr(mr->lkey));
  }
}

// MR-MP-02: last byte inside, first byte outside, on both ends.
TEST_F(Resolve, Boundaries) {
  EXPECT_TRUE(table_.resolve_remote(mr_.rkey, pd_, kVa + kLength - 1, 1, kRemoteWrite));
  EXPECT_TRUE(table_.resolve_remote(mr_.rkey, pd_, kVa, 1, kRemoteWrite));
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa + kLength, 1, kRemoteWrite), AccessError::kOutOfRange);
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa - 1, 1, kRemoteWrite), AccessError::kOutOfRange);
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa, kLength + 1, kRemoteWrite), AccessError::kOutOfRange);
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa + 1, kLength, kRemoteWrite), AccessError::kOutOfRange);
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa - 1, 2, kRemoteWrite), AccessError::kOutOfRange);
}

// va + length wraps past 2^64: out of range, not a short range near 0.
TEST_F(Resolve, VaPlusLengthOverflowIsOutOfRange) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa, kMax, kRemoteRead), AccessError::kOutOfRange);
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa + 1, kMax - kVa, kRemoteRead),
            AccessError::kOutOfRange);
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kMax, 2, kRemoteRead), AccessError::kOutOfRange);
  auto local = table_.resolve_local(mr_.lkey, pd_, kVa + 8, kMax - 4, 0);
  ASSERT_FALSE(local);
  EXPECT_EQ(local.error(), AccessError::kOutOfRange);
}

// MR-MP-06, MR-RD-04: length 0 succeeds whatever the key, PD, VA and access.
TEST_F(Resolve, ZeroLengthSucceedsWithAGarbageKey) {
  for (uint32_t key : {0u, 0xdeadbeefU, mr_.lkey}) {
    auto r =
        table_.resolve_remote(key, 999, std::numeric_limits<uint64_t>::max(), 0, kRemoteAtomic);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->empty());
    auto pinned = table_.resolve_remote_pinned(key, 999, 0, 0, kRemoteRead);
    ASSERT_TRUE(pinned);
    EXPECT_TRUE(pinned->bytes.empty());
    auto local = table_.resolve_local(key, 999, 0, 0, kLocalWrite);
    ASSERT_TRUE(local);
    EXPECT_TRUE(local->empty());
  }
  EXPECT_EQ(table_.counters().remote_checks, 0u);  // nothing was checked
}

TEST_F(Resolve, LocalBoundaries) {
  EXPECT_TRUE(table_.resolve_local(mr_.lkey, pd_, kVa + kLength - 1, 1, kLocalWrite));
  auto past = table_.resolve_local(mr_.lkey, pd_, kVa + kLength, 1, kLocalWrite);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error(), AccessError::kOutOfRange);
}

// The storage outlives dereg_mr while a pinned span holds it (MR-MP-11 is the transport's:
// it re-resolves, this only keeps its buffer valid in between).
TEST_F(Resolve, PinnedSpanOutlivesDeregistration) {
  auto pinned = table_.resolve_remote_pinned(mr_.rkey, pd_, kVa + 64, 64, kRemoteWrite);
  ASSERT_TRUE(pinned);
  ASSERT_TRUE(table_.dereg_mr(mr_.lkey));
  pinned->bytes[63] = 1;  // still ours (ASan would report a use after free)
  EXPECT_EQ(remote_error(mr_.rkey, pd_, kVa + 64, 64, kRemoteWrite), AccessError::kInvalidKey);
  auto failed = table_.resolve_remote_pinned(mr_.rkey, pd_, kVa, 1, kRemoteWrite);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), AccessError::kInvalidKey);
}

TEST_F(Resolve, FailuresAreCountedByReason) {
  (void)table_.resolve_remote(mr_.rkey, pd_, kVa, 1, kRemoteRead);
  (void)table_.resolve_remote(0xdead, pd_, kVa, 1, kRemoteRead);
  (void)table_.resolve_remote(mr_.rkey, other_pd_, kVa, 1, kRemoteRead);
  (void)table_.resolve_remote(mr_.rkey, pd_, kVa, 1, kRemoteAtomic);
  (void)table_.resolve_remote(mr_.rkey, pd_, kVa + kLength, 1, kRemoteRead);
  (void)table_.resolve_remote(mr_.rkey, pd_, kVa + kLength, 1, kRemoteRead);
  (void)table_.resolve_local(mr_.lkey, other_pd_, kVa, 1, 0);
  const auto& c = table_.counters();
  EXPECT_EQ(c.remote_checks, 6u);
  EXPECT_EQ(c.remote_failed(AccessError::kInvalidKey), 1u);
  EXPECT_EQ(c.remote_failed(AccessError::kWrongPd), 1u);
  EXPECT_EQ(c.remote_failed(AccessError::kNotPermitted), 1u);
  EXPECT_EQ(c.remote_failed(AccessError::kOutOfRange), 2u);
  EXPECT_EQ(c.remote_failed(AccessError::kInvalidated), 0u);
  EXPECT_EQ(c.local_checks, 1u);
  EXPECT_EQ(c.local_failed(AccessError::kWrongPd), 1u);
}

}  // namespace
}  // namespace mr::memory
