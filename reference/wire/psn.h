// File: psn.h
//
// Packet sequence numbers: 24-bit, modulo 2^24 (IBTA 9.7.1). `psn_diff(a, b)` is a - b as
// a signed 24-bit distance in [-2^23, 2^23), so PSNs up to 2^23 - 1 after b are "ahead" and
// up to 2^23 before it are "behind" (the rule rxe's psn_compare implements). Every PSN
// computation, in the reference and in the harness, goes through these.
#pragma once

#include <cstdint>

namespace mr::wire {

inline constexpr unsigned kPsnBits = 24;
inline constexpr uint32_t kPsnMask = (uint32_t{1} << kPsnBits) - 1;

// The shift moves PSN bit 23 into the sign bit; the arithmetic shift back sign-extends.
constexpr int32_t psn_diff(uint32_t a, uint32_t b) {
  return static_cast<int32_t>((a - b) << (32 - kPsnBits)) >> (32 - kPsnBits);
}

constexpr uint32_t psn_add(uint32_t psn, int64_t n) {
  return static_cast<uint32_t>(static_cast<int64_t>(psn) + n) & kPsnMask;
}

static_assert(kPsnMask == 0xffffff);
static_assert(psn_diff(0x000001, 0xffffff) == 2);
static_assert(psn_diff(0xffffff, 0x000001) == -2);
static_assert(psn_diff(0x800000, 0) == -0x800000 && psn_diff(0x7fffff, 0) == 0x7fffff);
static_assert(psn_add(0xffffff, 1) == 0 && psn_add(0, -1) == 0xffffff);

}  // namespace mr::wire
