#include "reference/memory/region_storage.h"

#include <sys/mman.h>

#include <new>

namespace mr::memory {
namespace {

std::size_t lines_for(uint64_t length, uint64_t line_offset) {
  // An empty region still gets one line so that it has a distinct address.
  return (line_offset % kCacheLine + length + kCacheLine - 1) / kCacheLine + (length == 0 ? 1 : 0);
}

}  // namespace

void RegionStorage::Unmap::operator()(uint8_t* pages) const { ::munmap(pages, length); }

RegionStorage::RegionStorage(uint64_t length, uint64_t line_offset)
    : pages_(nullptr, Unmap{0}), begin_(nullptr), length_(length) {
  const std::size_t lines = lines_for(length, line_offset);
  if (length <= kHeapRegionLimit) {
    // make_unique value-initializes, so the region starts zero-filled as a fresh mmap would.
    lines_ = std::make_unique<Line[]>(lines);
    begin_ = lines_[0].bytes + line_offset % kCacheLine;
    return;
  }
  const std::size_t bytes = lines * kCacheLine;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  pages_ = std::unique_ptr<uint8_t, Unmap>(static_cast<uint8_t*>(p), Unmap{bytes});
  begin_ = pages_.get() + line_offset % kCacheLine;
}

}  // namespace mr::memory
