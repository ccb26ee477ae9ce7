// File: seeded_random.h
//
// The fabric's random numbers: SplitMix64 (Steele, Lea, Flood 2014), one small stream per
// link and purpose, each derived from the fabric's one seed. Independent streams keep a
// link's draws the same whatever the traffic elsewhere, and the generator is specified
// bit for bit, so a seed replays on every standard library.
#pragma once

#include <cstdint>

namespace mr::io::fabric {

// A well-mixed 64-bit function of its input (SplitMix64's finalizer).
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The seed of stream (a, b) of a fabric seeded with `seed`.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b = 0) {
  return mix64(mix64(mix64(seed) ^ a) ^ b);
}

class SeededRandom {
 public:
  explicit constexpr SeededRandom(uint64_t seed = 0) : state_(seed) {}
  constexpr uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // [0, 1) with 53 bits.
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // True with probability p (never for p <= 0, always for p >= 1, and then draws nothing so
  // that switching a fault off leaves the other draws unchanged).
  constexpr bool chance(double p) {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return uniform() < p;
  }

 private:
  uint64_t state_;
};

}  // namespace mr::io::fabric
