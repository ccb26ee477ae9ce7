#include "reference/memory/key_generator.h"

#include <random>

namespace mr::memory {
namespace {

// SplitMix64's finalizer (Steele, Lea, Flood 2014): a fast 64-bit mixer whose output bits
// each depend on every input bit.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

KeyGenerator::KeyGenerator(uint64_t seed) : seed_(seed) {
  // SplitMix64 as a generator: round keys are successive outputs from the seed.
  uint64_t state = seed;
  for (auto& key : round_keys_) {
    state += 0x9e3779b97f4a7c15ULL;
    key = mix64(state);
  }
}

uint64_t KeyGenerator::random_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

uint32_t KeyGenerator::permute(uint32_t value) const {
  uint32_t left = value >> 16;
  uint32_t right = value & 0xffffU;
  for (uint64_t round_key : round_keys_) {
    // A Feistel round is invertible whatever its round function, so P is a bijection.
    const uint32_t f = static_cast<uint32_t>(mix64(round_key ^ right)) & 0xffffU;
    const uint32_t next = left ^ f;
    left = right;
    right = next;
  }
  return (left << 16) | right;
}

uint32_t KeyGenerator::next() {
  // P is a bijection, so at most one counter value maps to 0: one retry at most.
  for (;;) {
    const uint32_t key = permute(counter_++);
    if (key != 0) return key;
  }
}

}  // namespace mr::memory
