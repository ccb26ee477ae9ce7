#include "reference/memory/memory_table.h"

#include <gtest/gtest.h>

#include <deque>
#include <limits>
#include <unordered_set>
#include <vector>

namespace mr::memory {
namespace {

constexpr uint32_t kRw = kLocalWrite | kRemoteWrite | kRemoteRead;

TEST(MemoryTable, PdHandlesAreDistinctAndNonZero) {
  MemoryTable table(1);
  auto a = table.alloc_pd();
  auto b = table.alloc_pd();
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, 0u);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(table.counters().pds_live, 2u);
}

TEST(MemoryTable, DeallocPdFailsWhileARegionUsesIt) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto mr = table.reg_mr(pd, 64, kLocalWrite);
  ASSERT_TRUE(mr);
  auto busy = table.dealloc_pd(pd);
  ASSERT_FALSE(busy);
  EXPECT_NE(busy.error().find("in use"), std::string::npos) << busy.error();
  ASSERT_TRUE(table.dereg_mr(mr->lkey));
  EXPECT_TRUE(table.dealloc_pd(pd));
  EXPECT_FALSE(table.dealloc_pd(pd));  // twice
  EXPECT_FALSE(table.reg_mr(pd, 64, 0));
}

TEST(MemoryTable, RegMrGivesDistinctNonZeroKeysAndRealAddressByDefault) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto mr = table.reg_mr(pd, 1000, kRw);
  ASSERT_TRUE(mr) << mr.error();
  EXPECT_EQ(mr->pd, pd);
  EXPECT_NE(mr->lkey, 0u);
  EXPECT_NE(mr->rkey, 0u);
  EXPECT_NE(mr->lkey, mr->rkey);
  EXPECT_EQ(mr->length, 1000u);
  EXPECT_EQ(mr->access, kRw);
  EXPECT_EQ(mr->va % 64, 0u);  // the storage's own address, 64-byte aligned
  auto span = table.resolve_local(mr->lkey, pd, mr->va, 1000, 0);
  ASSERT_TRUE(span);
  EXPECT_EQ(reinterpret_cast<uint64_t>(span->data()), mr->va);
}

TEST(MemoryTable, ExplicitVaIsANameAndStorageIsZeroFilled) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto mr = table.reg_mr(pd, 256, kRw, 0x10000000);
  ASSERT_TRUE(mr);
  EXPECT_EQ(mr->va, 0x10000000u);
  auto bytes = table.read(mr->lkey, 0x10000000, 256);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, std::vector<uint8_t>(256, 0));
}

// The region keeps the VA's alignment, so atomic alignment seen by VA and by address agree.
TEST(MemoryTable, StorageKeepsTheAlignmentOfAnExplicitVa) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto mr = table.reg_mr(pd, 64, kRw, 0x10000003);
  ASSERT_TRUE(mr);
  auto span = table.resolve_local(mr->lkey, pd, 0x10000005, 8, 0);
  ASSERT_TRUE(span);
  EXPECT_EQ(reinterpret_cast<uint64_t>(span->data()) % 64, 0x10000005u % 64);
}

TEST(MemoryTable, RemoteWriteOrAtomicWithoutLocalWriteIsRefused) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  EXPECT_FALSE(table.reg_mr(pd, 64, kRemoteWrite));
  EXPECT_FALSE(table.reg_mr(pd, 64, kRemoteAtomic | kRemoteRead));
  EXPECT_TRUE(table.reg_mr(pd, 64, kRemoteRead));
  EXPECT_TRUE(table.reg_mr(pd, 64, 0));
  EXPECT_TRUE(table.reg_mr(pd, 64, kLocalWrite | kRemoteAtomic));
  EXPECT_FALSE(table.reg_mr(pd, 64, 0x40));  // unknown bit
  EXPECT_FALSE(table.reg_mr(pd, 64, kZeroBased));
}

TEST(MemoryTable, LengthAndVaLimits) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  EXPECT_FALSE(table.reg_mr(pd, kMaxMrSize + 1, 0));
  EXPECT_FALSE(table.reg_mr(pd, 2, 0, kMax));  // va + length beyond 2^64
  auto top = table.reg_mr(pd, 1, kRw, kMax);   // the last byte of the address space
  ASSERT_TRUE(top);
  EXPECT_TRUE(table.resolve_remote(top->rkey, pd, kMax, 1, kRemoteRead));
  auto empty = table.reg_mr(pd, 0, kRw, 0x1000);
  ASSERT_TRUE(empty);
  EXPECT_FALSE(table.resolve_remote(empty->rkey, pd, 0x1000, 1, kRemoteRead));
}

TEST(MemoryTable, DeregThenLookupFindsNothing) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto mr = table.reg_mr(pd, 64, kRw, 0x1000);
  ASSERT_TRUE(mr);
  ASSERT_TRUE(table.dereg_mr(mr->lkey));
  EXPECT_FALSE(table.dereg_mr(mr->lkey));
  EXPECT_FALSE(table.query_mr(mr->lkey));
  EXPECT_FALSE(table.read(mr->lkey, 0x1000, 1));
  EXPECT_FALSE(table.write(mr->lkey, 0x1000, std::vector<uint8_t>{1}));
  auto remote = table.resolve_remote(mr->rkey, pd, 0x1000, 1, kRemoteRead);
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error(), AccessError::kInvalidKey);
  auto local = table.resolve_local(mr->lkey, pd, 0x1000, 1, 0);
  ASSERT_FALSE(local);
  EXPECT_EQ(local.error(), AccessError::kInvalidKey);
}

TEST(MemoryTable, WriteThenReadRoundTripsAndIsBoundsChecked) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto mr = table.reg_mr(pd, 16, 0, 0x2000);  // no access flags: the owner still writes
  ASSERT_TRUE(mr);
  const std::vector<uint8_t> data = {1, 2, 3, 4};
  ASSERT_TRUE(table.write(mr->lkey, 0x200c, data));
  EXPECT_EQ(*table.read(mr->lkey, 0x200c, 4), data);
  EXPECT_EQ(table.read(mr->lkey, 0x2000, 16)->at(12), 1);
  auto past = table.write(mr->lkey, 0x200d, data);
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().find("outside region"), std::string::npos) << past.error();
  EXPECT_FALSE(table.read(mr->lkey, 0x2000, 17));
  EXPECT_FALSE(table.read(mr->lkey, 0x1fff, 1));
  EXPECT_TRUE(table.read(mr->lkey, 0x2010, 0));
}

TEST(MemoryTable, QueryMrReturnsTheRegistration) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto mr = table.reg_mr(pd, 64, kRw, 0x3000);
  ASSERT_TRUE(mr);
  auto info = table.query_mr(mr->lkey);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->rkey, mr->rkey);
  EXPECT_EQ(info->va, 0x3000u);
}

// Keys over 100,000 registrations: never 0, never shared by two live keys, and (with this
// generator) never repeated at all, even after deregistration.
TEST(MemoryTable, HundredThousandRegistrationsHaveUniqueNonZeroKeys) {
  MemoryTable table(0xabcdef);
  const uint32_t pd = *table.alloc_pd();
  std::unordered_set<uint32_t> seen;
  std::deque<uint32_t> live;
  for (int i = 0; i < 100'000; ++i) {
    auto mr = table.reg_mr(pd, 0, kRw, 0);
    ASSERT_TRUE(mr);
    EXPECT_NE(mr->lkey, 0u);
    EXPECT_NE(mr->rkey, 0u);
    EXPECT_TRUE(seen.insert(mr->lkey).second);
    EXPECT_TRUE(seen.insert(mr->rkey).second);
    live.push_back(mr->lkey);
    if (i % 3 == 0) {  // churn: deregistered keys must not come back
      ASSERT_TRUE(table.dereg_mr(live.front()));
      live.pop_front();
    }
  }
  EXPECT_EQ(table.counters().mr_registrations, 100'000u);
  EXPECT_EQ(table.counters().mrs_live, live.size());
}

TEST(MemoryTable, SameSeedSameKeysOtherSeedOtherKeys) {
  auto keys = [](uint64_t seed) {
    MemoryTable table(seed);
    const uint32_t pd = *table.alloc_pd();
    std::vector<uint32_t> out;
    for (int i = 0; i < 100; ++i) {
      auto mr = table.reg_mr(pd, 8, kRw, 0x1000);
      out.push_back(mr->lkey);
      out.push_back(mr->rkey);
    }
    return out;
  };
  EXPECT_EQ(keys(5), keys(5));
  EXPECT_NE(keys(5), keys(6));
  EXPECT_EQ(MemoryTable(5).key_seed(), 5u);
}

TEST(MemoryTable, CountersFollowRegistrations) {
  MemoryTable table(1);
  const uint32_t pd = *table.alloc_pd();
  auto a = table.reg_mr(pd, 100, kRw);
  auto b = table.reg_mr(pd, 28, kRw);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(table.counters().mrs_live, 2u);
  EXPECT_EQ(table.counters().mr_bytes_live, 128u);
  ASSERT_TRUE(table.dereg_mr(a->lkey));
  EXPECT_EQ(table.counters().mr_registrations, 2u);
  EXPECT_EQ(table.counters().mr_deregistrations, 1u);
  EXPECT_EQ(table.counters().mrs_live, 1u);
  EXPECT_EQ(table.counters().mr_bytes_live, 28u);
}

}  // namespace
}  // namespace mr::memory
