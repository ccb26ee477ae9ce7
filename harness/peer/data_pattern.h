// File: data_pattern.h
//
// The bytes an interop cell or a driven test case moves, from a seed, so that a failing run
// is replayed exactly: pattern bytes are never zero (a fresh region is zero-filled, so an unwritten
// byte never matches), guard bytes around every region are kGuardByte, and atomics operate on
// seeded 64-bit values stored in host order (x86: little-endian, as rxe and the reference do).
//
//   auto bytes = pattern_bytes(seed, 4096);
//   uint64_t v = pattern_u64(seed, 1);
#pragma once

#include <cstdint>
#include <vector>

namespace mr::peer {

inline constexpr uint8_t kGuardByte = 0xa5;
inline constexpr uint64_t kGuardBytes = 64;  // before and after each region

std::vector<uint8_t> pattern_bytes(uint64_t seed, uint64_t n);
// The stream'th 64-bit value of a seed (splitmix64): PSNs, atomic operands.
uint64_t pattern_u64(uint64_t seed, uint64_t stream);
std::vector<uint8_t> u64_bytes(uint64_t v);         // 8 bytes, little-endian
uint64_t bytes_u64(const std::vector<uint8_t>& b);  // the first 8 bytes, little-endian

}  // namespace mr::peer
