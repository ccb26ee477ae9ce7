// File: region_storage.h
//
// The bytes behind a memory region: zero-filled, owned, in 64-byte aligned cache lines.
//
// A region registered with an explicit VA starts at the same offset within its first cache
// line as that VA (va mod 64), so the address the transport checks (RETH or AtomicETH VA)
// and the address it touches have the same alignment: an atomic at a VA that is a multiple
// of 8 is a naturally aligned 8-byte word in memory, and one that is not is refused
// (MR-AT-03) whichever of the two is checked.
//
//   RegionStorage storage(4096, /*line_offset=*/0);
//   std::span<uint8_t> bytes = storage.bytes();   // 4096 zero bytes, 64-byte aligned
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace mr::memory {

inline constexpr std::size_t kCacheLine = 64;

class RegionStorage {
 public:
  // length bytes starting line_offset (< 64) bytes into the first line.
  RegionStorage(uint64_t length, uint64_t line_offset);

  std::span<uint8_t> bytes() const { return {begin_, static_cast<std::size_t>(length_)}; }
  uint64_t address() const { return reinterpret_cast<uint64_t>(begin_); }

 private:
  struct alignas(kCacheLine) Line {
    uint8_t bytes[kCacheLine];
  };

  std::unique_ptr<Line[]> lines_;
  uint8_t* begin_;
  uint64_t length_;
};

}  // namespace mr::memory
