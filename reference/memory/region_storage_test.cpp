#include "reference/memory/region_storage.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mr::memory {
namespace {

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

}  // namespace
}  // namespace mr::memory
