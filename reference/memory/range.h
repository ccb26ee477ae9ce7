// File: range.h
//
// The bounds check of every key lookup (rxe mr_check_range): is [va, va + length) inside
// [base, base + size)? Written without ever computing va + length, so a request whose end
// wraps past 2^64 is out of range instead of appearing to end before its start (MR-MP-02).
//
//   if (auto offset = offset_within(region_va, region_size, va, length)) {
//     bytes = storage.subspan(*offset, length);
//   }
#pragma once

#include <cstdint>
#include <optional>

namespace mr::memory {

// The offset of va from base when [va, va + length) lies inside [base, base + size);
// nullopt otherwise. An empty range is inside when va is in [base, base + size].
constexpr std::optional<uint64_t> offset_within(uint64_t base, uint64_t size, uint64_t va,
                                                uint64_t length) {
  if (va < base) return std::nullopt;
  const uint64_t offset = va - base;
  if (offset > size || length > size - offset) return std::nullopt;
  return offset;
}

}  // namespace mr::memory
