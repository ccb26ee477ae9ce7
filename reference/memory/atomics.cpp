#include "reference/memory/atomics.h"

#include <atomic>

namespace mr::memory {
namespace {

constexpr std::size_t kAtomicSize = 8;

Expected<uint64_t*, AccessError> atomic_target(std::span<uint8_t> target) {
  if (target.size() != kAtomicSize) return Unexpected(AccessError::kOutOfRange);
  // MR-AT-03: an atomic whose VA is not a multiple of 8 is refused before memory is touched.
  // RegionStorage keeps VA and address congruent modulo 64, so checking the address here is
  // checking the VA.
  if (reinterpret_cast<uintptr_t>(target.data()) % std::atomic_ref<uint64_t>::required_alignment !=
      0) {
    return Unexpected(AccessError::kMisaligned);
  }
  // Region bytes are an array of unsigned char, which provides storage for implicitly created
  // objects, so treating an aligned 8-byte slice as a uint64_t is defined.
  return reinterpret_cast<uint64_t*>(target.data());
}

}  // namespace

Expected<uint64_t, AccessError> atomic_compare_swap(std::span<uint8_t> target, uint64_t compare,
                                                    uint64_t swap) {
  auto word = atomic_target(target);
  if (!word) return Unexpected(word.error());
  uint64_t original = compare;
  // On failure compare_exchange stores the value it found into original; on success the
  // value found was compare. Either way original is the value before the operation.
  std::atomic_ref<uint64_t>(**word).compare_exchange_strong(original, swap);
  return original;
}

Expected<uint64_t, AccessError> atomic_fetch_add(std::span<uint8_t> target, uint64_t add) {
  auto word = atomic_target(target);
  if (!word) return Unexpected(word.error());
  return std::atomic_ref<uint64_t>(**word).fetch_add(add);
}

}  // namespace mr::memory
