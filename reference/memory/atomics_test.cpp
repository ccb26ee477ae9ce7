#include "reference/memory/atomics.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "reference/memory/region_storage.h"

namespace mr::memory {
namespace {

uint64_t load(std::span<uint8_t> bytes) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data(), sizeof v);
  return v;
}

void store(std::span<uint8_t> bytes, uint64_t v) { std::memcpy(bytes.data(), &v, sizeof v); }

TEST(Atomics, CompareSwapSwapsOnlyOnEqualAndReturnsTheOriginal) {
  RegionStorage storage(64, 0);
  auto word = storage.bytes().subspan(8, 8);
  store(word, 5);
  auto miss = atomic_compare_swap(word, 4, 9);
  ASSERT_TRUE(miss);
  EXPECT_EQ(*miss, 5u);
  EXPECT_EQ(load(word), 5u);
  auto hit = atomic_compare_swap(word, 5, 9);
  ASSERT_TRUE(hit);
  EXPECT_EQ(*hit, 5u);
  EXPECT_EQ(load(word), 9u);
}

TEST(Atomics, FetchAddReturnsTheOriginalAndWraps) {
  RegionStorage storage(8, 0);
  auto word = storage.bytes();
  store(word, ~uint64_t{0});
  auto original = atomic_fetch_add(word, 2);
  ASSERT_TRUE(original);
  EXPECT_EQ(*original, ~uint64_t{0});
  EXPECT_EQ(load(word), 1u);
}

// Host byte order: the value the application stored with memcpy is the value operated on.
TEST(Atomics, OperatesInHostByteOrder) {
  RegionStorage storage(8, 0);
  store(storage.bytes(), 0x0102030405060708ULL);
  auto original = atomic_fetch_add(storage.bytes(), 0x10);
  ASSERT_TRUE(original);
  EXPECT_EQ(*original, 0x0102030405060708ULL);
  EXPECT_EQ(load(storage.bytes()), 0x0102030405060718ULL);
}

// MR-AT-03: misaligned targets are refused and memory stays unchanged.
TEST(Atomics, MisalignedTargetIsRefusedAndUntouched) {
  RegionStorage storage(64, 0);
  for (std::size_t offset = 1; offset < 8; ++offset) {
    auto word = storage.bytes().subspan(offset, 8);
    auto cas = atomic_compare_swap(word, 0, 0xff);
    ASSERT_FALSE(cas);
    EXPECT_EQ(cas.error(), AccessError::kMisaligned);
    auto add = atomic_fetch_add(word, 1);
    ASSERT_FALSE(add);
    EXPECT_EQ(add.error(), AccessError::kMisaligned);
  }
  for (uint8_t b : storage.bytes()) EXPECT_EQ(b, 0);
}

TEST(Atomics, TargetMustBeExactlyEightBytes) {
  RegionStorage storage(16, 0);
  for (std::size_t size : {0u, 4u, 7u, 9u, 16u}) {
    auto add = atomic_fetch_add(storage.bytes().first(size), 1);
    ASSERT_FALSE(add) << size;
    EXPECT_EQ(add.error(), AccessError::kOutOfRange);
  }
}

// MR-AT-07: concurrent FETCH_ADDs on one location are serialized.
TEST(Atomics, ConcurrentFetchAddsAddUp) {
  constexpr int kThreads = 8;
  constexpr int kAdds = 20'000;
  RegionStorage storage(8, 0);
  auto word = storage.bytes();
  {
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([word] {
        for (int i = 0; i < kAdds; ++i) ASSERT_TRUE(atomic_fetch_add(word, 1));
      });
    }
  }
  EXPECT_EQ(load(word), uint64_t{kThreads} * kAdds);
}

// Concurrent COMPARE_SWAP increments: each success is one increment, none lost.
TEST(Atomics, ConcurrentCompareSwapLosesNoUpdate) {
  constexpr int kThreads = 4;
  constexpr int kIncrements = 5'000;
  RegionStorage storage(8, 0);
  auto word = storage.bytes();
  {
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([word] {
        for (int done = 0; done < kIncrements;) {
          // A fetch-add of 0 is an atomic load: a plain read would race with the other threads.
          const uint64_t seen = *atomic_fetch_add(word, 0);
          auto original = atomic_compare_swap(word, seen, seen + 1);
          if (original && *original == seen) ++done;
        }
      });
    }
  }
  EXPECT_EQ(load(word), uint64_t{kThreads} * kIncrements);
}

}  // namespace
}  // namespace mr::memory
