// File: mapped_file.h
//
// A read-only memory map of a whole file, released on destruction. Captures are read
// through it so that a multi-gigabyte trace costs page cache, not heap.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "reference/error/expected.h"

namespace mr::io {

class MappedFile {
 public:
  // Error text names the path and the system's reason.
  static Expected<MappedFile, std::string> open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  // Drops the whole pages inside [begin, end) from this process's resident set (they stay
  // in the page cache; touching them again reads them back). Advisory: the bytes do not
  // change, so spans into the range stay valid.
  void release(uint64_t begin, uint64_t end) const;

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace mr::io
