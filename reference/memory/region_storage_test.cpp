#include "reference/memory/region_storage.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>

namespace mr::memory {
namespace {

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(RegionStorage, ZeroFilledAndLineAligned) {
  RegionStorage storage(1000, 0);
  auto bytes = storage.bytes();
  EXPECT_EQ(bytes.size(), 1000u);
  EXPECT_EQ(storage.address() % kCacheLine, 0u);
  EXPECT_TRUE(std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; }));
  bytes.back() = 0xff;  // the last byte is ours to write (ASan checks the bound)
}

TEST(RegionStorage, StartsAtTheRequestedOffsetInItsLine) {
  for (uint64_t offset : {1u, 7u, 8u, 63u}) {
    RegionStorage storage(129, offset);
    EXPECT_EQ(storage.address() % kCacheLine, offset);
    storage.bytes().back() = 1;
  }
}

TEST(RegionStorage, EmptyRegionHasAnAddress) {
  RegionStorage storage(0, 0);
  EXPECT_TRUE(storage.bytes().empty());
  EXPECT_NE(storage.address(), 0u);
}

TEST(RegionStorage, LargeRegionIsMappedZeroAndCostsOnlyWhatIsTouched) {
  const uint64_t length = (uint64_t{1} << 31) - 256;
  const long peak_before_kib = peak_rss_kib();
  RegionStorage storage(length, 5);
  EXPECT_EQ(storage.address() % kCacheLine, 5u);
  auto bytes = storage.bytes();
  ASSERT_EQ(bytes.size(), length);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[length / 2], 0);
  EXPECT_EQ(bytes.back(), 0);
  bytes.back() = 0xff;
  bytes[length / 2] = 0x11;
  EXPECT_EQ(bytes.back(), 0xff);
  // Three touched pages, not 2 GiB (a zero-filling allocation would commit all of it).
  EXPECT_LT(peak_rss_kib() - peak_before_kib, 64 * 1024);
}

TEST(RegionStorage, HeapAndMappedRegionsMeetAtTheLimit) {
  RegionStorage heap(kHeapRegionLimit, 0);
  RegionStorage mapped(kHeapRegionLimit + 1, 0);
  heap.bytes().back() = 1;
  mapped.bytes().back() = 1;
  EXPECT_EQ(heap.bytes().size() + 1, mapped.bytes().size());
}

}  // namespace
}  // namespace mr::memory
