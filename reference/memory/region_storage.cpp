#include "reference/memory/region_storage.h"

namespace mr::memory {

RegionStorage::RegionStorage(uint64_t length, uint64_t line_offset)
    // make_unique value-initializes, so the region starts zero-filled as a fresh mmap would;
    // an empty region still gets one line so that it has a distinct address.
    : lines_(std::make_unique<Line[]>((line_offset % kCacheLine + length + kCacheLine - 1) /
                                          kCacheLine +
                                      (length == 0 ? 1 : 0))),
      begin_(lines_[0].bytes + line_offset % kCacheLine),
      length_(length) {}

}  // namespace mr::memory
