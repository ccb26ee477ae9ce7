#include "reference/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace mr::io {

Expected<MappedFile, std::string> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unexpected(path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Unexpected(path + ": not a regular file");
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return MappedFile(nullptr, 0);
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Unexpected(path + ": mmap: " + std::strerror(err));
  ::madvise(p, size, MADV_SEQUENTIAL);
  return MappedFile(static_cast<const uint8_t*>(p), size);
}

void MappedFile::release(uint64_t begin, uint64_t end) const {
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  end = std::min<uint64_t>(end, size_);
  const uint64_t first = (begin + page - 1) / page * page;
  const uint64_t last = end / page * page;
  if (!data_ || first >= last) return;
  // MAP_PRIVATE and never written: the pages are the file's, so dropping them loses nothing.
  ::madvise(const_cast<uint8_t*>(data_) + first, last - first, MADV_DONTNEED);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace mr::io
