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
// Regions up to kHeapRegionLimit live on the heap, where ASan checks their exact bound. Larger
// ones are anonymous mappings: their pages are zero and committed on first touch, so a
// 2 GiB region of which a test touches one packet's worth costs one page (MR-PS-11 needs a
// READ of 2^23 - 1 PMTU-256 packets, which only a region of nearly 2 GiB can be the target of).
// Either allocation failing throws std::bad_alloc.
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
inline constexpr uint64_t kHeapRegionLimit = uint64_t{1} << 24;

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
  struct Unmap {
    std::size_t length;
    void operator()(uint8_t* pages) const;
  };

  std::unique_ptr<Line[]> lines_;          // a region up to kHeapRegionLimit
  std::unique_ptr<uint8_t, Unmap> pages_;  // a larger one
  uint8_t* begin_;
  uint64_t length_;
};

}  // namespace mr::memory
