// File: key_generator.h
//
// L_Key and R_Key values. A key is a capability: whoever holds an R_Key may read or write
// the memory behind it, so a key must not reveal its neighbours. Verbs providers usually
// build keys as (table index << 8) | variant (rxe does); a peer that has seen one key can
// then walk the index and reach other regions. This generator does not.
//
// Scheme: key = P_seed(counter), where counter counts 0, 1, 2, ... and P_seed is a keyed
// permutation of the 32-bit values, an 8-round Feistel network on 16-bit halves whose round
// keys come from the seed through SplitMix64. Because P is a permutation, the first 2^32 - 1
// keys are pairwise distinct, without storing the keys handed out, so no key is ever reused
// within a run, live or not (a peer holding a stale key never reaches a new region).
// 0 is skipped, because verbs uses 0 for "no key". The same seed gives the same keys, so a
// run can be reproduced; the caller logs the seed.
//
// Not cryptography: a party that sees many keys and spends effort may recover the round
// keys. What it defeats is the thing a conformance suite probes: guessing a valid key by
// incrementing, decrementing or flipping bits of a known one.
//
//   KeyGenerator keys(seed);   // log the seed so the run can be replayed
//   uint32_t rkey = keys.next();
#pragma once

#include <array>
#include <cstdint>

namespace mr::memory {

class KeyGenerator {
 public:
  explicit KeyGenerator(uint64_t seed);

  // A seed from std::random_device, for runs that are not replaying an earlier one.
  static uint64_t random_seed();

  uint64_t seed() const { return seed_; }

  // The next key: never 0, distinct from every key this generator returned before, until
  // 2^32 - 1 keys have been handed out (after that the sequence repeats; MemoryTable still
  // never hands out a key that is live).
  uint32_t next();

  // The permutation itself, exposed for tests: a bijection on the 32-bit values.
  uint32_t permute(uint32_t value) const;

 private:
  static constexpr int kRounds = 8;

  uint64_t seed_;
  std::array<uint64_t, kRounds> round_keys_{};
  uint32_t counter_ = 0;
};

}  // namespace mr::memory
