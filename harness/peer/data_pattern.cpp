#include "harness/peer/data_pattern.h"

#include <cstddef>

namespace mr::peer {

uint64_t pattern_u64(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + (stream + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<uint8_t> pattern_bytes(uint64_t seed, uint64_t n) {
  std::vector<uint8_t> out(n);
  for (uint64_t i = 0; i < n; i += 8) {
    const uint64_t word = pattern_u64(seed, 1000 + i / 8);
    for (uint64_t k = 0; k < 8 && i + k < n; ++k) {
      out[i + k] = static_cast<uint8_t>(1 + ((word >> (8 * k)) & 0xff) % 255);  // 1..255
    }
  }
  return out;
}

std::vector<uint8_t> u64_bytes(uint64_t v) {
  std::vector<uint8_t> b(8);
  for (size_t i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  return b;
}

uint64_t bytes_u64(const std::vector<uint8_t>& b) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && i < b.size(); ++i) v |= uint64_t{b[i]} << (8 * i);
  return v;
}

}  // namespace mr::peer
