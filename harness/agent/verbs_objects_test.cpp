#include "harness/agent/verbs_objects.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace mr::agent {
namespace {

uint64_t page() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

TEST(MappedMemory, FreshMemoryIsPageAlignedAndZero) {
  auto m = map_memory(10000, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m->data()) % page(), 0U);
  EXPECT_GE(m->size(), 10000U);
  EXPECT_TRUE(std::all_of(m->data(), m->data() + 10000, [](uint8_t b) { return b == 0; }));
}

TEST(MappedMemory, RequestedAddressIsHonouredWhenFree) {
  uint64_t free_address = 0;
  {
    auto probe = map_memory(4 * page(), std::nullopt);  // find a free range, then free it
    ASSERT_TRUE(probe);
    free_address = reinterpret_cast<uintptr_t>(probe->data());
  }
  const uint64_t va = free_address + page() + 100;  // not page-aligned
  auto m = map_memory(200, va);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m->data()), free_address + page());
  EXPECT_EQ(m->size(), page());
}

TEST(MappedMemory, RequestedAddressInUseIsRefused) {
  auto taken = map_memory(page(), std::nullopt);
  ASSERT_TRUE(taken);
  auto m = map_memory(page(), reinterpret_cast<uintptr_t>(taken->data()));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error(), EEXIST);
}

TEST(MappedMemory, ImpossibleRangesAreRefused) {
  EXPECT_FALSE(map_memory(0, std::nullopt));
  EXPECT_FALSE(map_memory(page(), UINT64_MAX - 10));
}

TEST(MappedMemory, MovesOwnership) {
  auto m = map_memory(page(), std::nullopt);
  ASSERT_TRUE(m);
  uint8_t* data = m->data();
  MappedMemory a = std::move(*m);
  EXPECT_EQ(m->data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the move
  MappedMemory b;
  b = std::move(a);
  EXPECT_EQ(b.data(), data);
  b.data()[0] = 1;  // still mapped
}

}  // namespace
}  // namespace mr::agent
