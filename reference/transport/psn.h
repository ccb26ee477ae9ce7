// File: psn.h
//
// Packet sequence numbers: 24-bit, modulo 2^24 (IBTA 9.7.1). `psn_diff(a, b)` is a - b as
// a signed 24-bit distance, so PSNs up to 2^23 - 1 after b are "ahead" and up to 2^23
// before it are "behind" (the rule rxe's psn_compare implements).
#pragma once

#include <cstdint>

namespace mr::transport {

inline constexpr uint32_t kPsnMask = 0xffffff;

constexpr int32_t psn_diff(uint32_t a, uint32_t b) {
  return static_cast<int32_t>((a - b) << 8) >> 8;
}

constexpr uint32_t psn_add(uint32_t psn, int64_t n) {
  return static_cast<uint32_t>(static_cast<int64_t>(psn) + n) & kPsnMask;
}

static_assert(psn_diff(0x000001, 0xffffff) == 2);
static_assert(psn_diff(0xffffff, 0x000001) == -2);
static_assert(psn_add(0xffffff, 1) == 0);

}  // namespace mr::transport
