#include "harness/agent/verbs_objects.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace mr::agent {

MappedMemory::MappedMemory(MappedMemory&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedMemory& MappedMemory::operator=(MappedMemory&& other) noexcept {
  if (this != &other) {
    MappedMemory old(std::move(*this));
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedMemory::~MappedMemory() {
  if (base_ != nullptr) munmap(base_, size_);
}

Expected<MappedMemory, int> map_memory(uint64_t length, std::optional<uint64_t> at) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t start = at ? *at & ~(page - 1) : 0;
  const uint64_t end = at ? *at + length : length;
  if (length == 0 || end < length || end > UINT64_MAX - page) return Unexpected(EINVAL);
  const uint64_t size = ((end + page - 1) & ~(page - 1)) - start;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  if (at) flags |= MAP_FIXED_NOREPLACE;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the address the client asked for
  void* hint = at ? reinterpret_cast<void*>(start) : nullptr;
  void* base = mmap(hint, size, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (base == MAP_FAILED) return Unexpected(errno);
  MappedMemory memory(base, size);
  // A kernel older than 4.17 takes MAP_FIXED_NOREPLACE as a mere hint.
  if (at && base != hint) return Unexpected(EEXIST);
  return memory;
}

}  // namespace mr::agent
