// File: psn.h
//
// 24-bit PSN arithmetic (IBTA 9.7.1): PSNs wrap, so "before" and "after" are judged by the
// signed distance modulo 2^24, as a requester and a responder do.
#pragma once

#include <cstdint>

namespace mr::analyze {

inline constexpr uint32_t kPsnMask = 0xffffff;

// a - b as a signed distance in [-2^23, 2^23).
constexpr int32_t psn_diff(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(((a - b) & kPsnMask) << 8) >> 8;
}
constexpr uint32_t psn_add(uint32_t a, int64_t n) {
  return static_cast<uint32_t>((static_cast<int64_t>(a) + n) & kPsnMask);
}

}  // namespace mr::analyze
