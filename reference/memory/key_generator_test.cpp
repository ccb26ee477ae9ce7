#include "reference/memory/key_generator.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <unordered_set>
#include <vector>

namespace mr::memory {
namespace {

std::vector<uint32_t> take(KeyGenerator& keys, int n) {
  std::vector<uint32_t> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out.push_back(keys.next());
  return out;
}

TEST(KeyGenerator, HundredThousandKeysAreDistinctAndNonZero) {
  KeyGenerator keys(0x5eed);
  std::unordered_set<uint32_t> seen;
  for (uint32_t key : take(keys, 100'000)) {
    EXPECT_NE(key, 0u);
    EXPECT_TRUE(seen.insert(key).second) << "key 0x" << std::hex << key << " repeated";
  }
}

TEST(KeyGenerator, SameSeedSameKeysOtherSeedOtherKeys) {
  KeyGenerator a(42);
  KeyGenerator b(42);
  KeyGenerator c(43);
  const auto ka = take(a, 1000);
  EXPECT_EQ(ka, take(b, 1000));
  const auto kc = take(c, 1000);
  int equal = 0;
  for (size_t i = 0; i < ka.size(); ++i) equal += ka[i] == kc[i] ? 1 : 0;
  EXPECT_LE(equal, 1);
  EXPECT_EQ(a.seed(), 42u);
}

// A permutation: distinct inputs, distinct outputs (checked on a slice; the Feistel
// structure guarantees it for all 2^32).
TEST(KeyGenerator, PermuteIsInjectiveOnASlice) {
  KeyGenerator keys(7);
  std::unordered_set<uint32_t> seen;
  for (uint32_t v = 0xfffe0000U; v != 0; ++v) EXPECT_TRUE(seen.insert(keys.permute(v)).second);
  EXPECT_EQ(seen.size(), 0x20000u);
}

// No index to enumerate: consecutive keys do not differ by a constant, do not share their
// low or high byte more than chance allows, and every bit is set about half the time.
TEST(KeyGenerator, KeysShowNoEnumerableStructure) {
  KeyGenerator keys(1234);
  const auto k = take(keys, 100'000);
  int same_low = 0;
  int same_high = 0;
  int same_delta = 0;
  std::array<int, 32> ones{};
  for (size_t i = 0; i < k.size(); ++i) {
    for (int bit = 0; bit < 32; ++bit) ones[bit] += (k[i] >> bit) & 1U;
    if (i == 0) continue;
    same_low += (k[i] & 0xffU) == (k[i - 1] & 0xffU) ? 1 : 0;
    same_high += (k[i] >> 24) == (k[i - 1] >> 24) ? 1 : 0;
    if (i >= 2) same_delta += k[i] - k[i - 1] == k[i - 1] - k[i - 2] ? 1 : 0;
  }
  // Chance: 1/256 of 100,000 is about 390.
  EXPECT_LT(same_low, 600);
  EXPECT_LT(same_high, 600);
  EXPECT_LT(same_delta, 10);
  for (int bit = 0; bit < 32; ++bit) {
    EXPECT_GT(ones[bit], 48'000) << "bit " << bit;
    EXPECT_LT(ones[bit], 52'000) << "bit " << bit;
  }
}

// A neighbour of a live key (one bit flipped, plus or minus one) is almost never another key
// of the same run.
TEST(KeyGenerator, NeighboursOfAKeyAreNotKeys) {
  KeyGenerator keys(99);
  const auto k = take(keys, 10'000);
  const std::unordered_set<uint32_t> live(k.begin(), k.end());
  int hits = 0;
  for (uint32_t key : k) {
    hits += live.contains(key + 1) ? 1 : 0;
    hits += live.contains(key - 1) ? 1 : 0;
    for (int bit = 0; bit < 32; ++bit) hits += live.contains(key ^ (1U << bit)) ? 1 : 0;
  }
  // Chance: 10,000 keys x 34 probes x 10,000 / 2^32 is about 0.8.
  EXPECT_LT(hits, 10);
}

TEST(KeyGenerator, RandomSeedsDiffer) {
  EXPECT_NE(KeyGenerator::random_seed(), KeyGenerator::random_seed());
}

}  // namespace
}  // namespace mr::memory
