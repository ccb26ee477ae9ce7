// File: verbs_objects.h
//
// Owning handles for libibverbs objects (unique_ptr with the matching ibv_destroy_* as its
// deleter) and for the anonymous memory a region is registered on. A deleter cannot report
// an error, so an explicit destroy calls the verbs function itself and release()s the
// handle only when it succeeded (see VerbsBackend::destroy).
//
//   IbvPd pd(ibv_alloc_pd(context.get()));
//   if (!pd) return verbs_error("ibv_alloc_pd", errno);
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "reference/error/expected.h"

namespace mr::agent {

template <class T, auto Destroy>
struct IbvDeleter {
  void operator()(T* object) const {
    if (object != nullptr) (void)Destroy(object);
  }
};

using IbvContext = std::unique_ptr<ibv_context, IbvDeleter<ibv_context, ibv_close_device>>;
using IbvPd = std::unique_ptr<ibv_pd, IbvDeleter<ibv_pd, ibv_dealloc_pd>>;
using IbvMr = std::unique_ptr<ibv_mr, IbvDeleter<ibv_mr, ibv_dereg_mr>>;
using IbvCq = std::unique_ptr<ibv_cq, IbvDeleter<ibv_cq, ibv_destroy_cq>>;
using IbvCompChannel =
    std::unique_ptr<ibv_comp_channel, IbvDeleter<ibv_comp_channel, ibv_destroy_comp_channel>>;
using IbvSrq = std::unique_ptr<ibv_srq, IbvDeleter<ibv_srq, ibv_destroy_srq>>;
using IbvQp = std::unique_ptr<ibv_qp, IbvDeleter<ibv_qp, ibv_destroy_qp>>;
using IbvDeviceList = std::unique_ptr<ibv_device*, IbvDeleter<ibv_device*, ibv_free_device_list>>;

// Page-aligned, zero-filled anonymous memory (mmap), unmapped on destruction.
class MappedMemory {
 public:
  MappedMemory() = default;
  MappedMemory(void* base, size_t size) : base_(base), size_(size) {}
  MappedMemory(MappedMemory&& other) noexcept;
  MappedMemory& operator=(MappedMemory&& other) noexcept;
  MappedMemory(const MappedMemory&) = delete;
  MappedMemory& operator=(const MappedMemory&) = delete;
  ~MappedMemory();

  uint8_t* data() const { return static_cast<uint8_t*>(base_); }
  size_t size() const { return size_; }

 private:
  void* base_ = nullptr;
  size_t size_ = 0;
};

// `length` bytes of fresh memory. With `at`, the pages holding [at, at + length) are mapped
// at exactly that address (MAP_FIXED_NOREPLACE) or not at all; the error is an errno.
Expected<MappedMemory, int> map_memory(uint64_t length, std::optional<uint64_t> at);

}  // namespace mr::agent
