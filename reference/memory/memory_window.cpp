// MemoryTable's type-2 memory windows (IBTA 10.6.7; rxe_mw.c). The spec keeps windows
// (section 11: "the R_Key names a valid memory region or window"). Type 1 windows, bound
// by a verb rather than a work request, and the QP association of type 2B are not modelled:
// a window is checked against its PD, like a region.
#include "reference/memory/memory_table.h"
#include "reference/memory/range.h"

namespace mr::memory {
namespace {

Unexpected<std::string> fail(std::string message) { return Unexpected(std::move(message)); }

}  // namespace

Expected<uint32_t, std::string> MemoryTable::alloc_mw(uint32_t pd) {
  auto pd_it = pds_.find(pd);
  if (pd_it == pds_.end()) return fail("unknown protection domain " + std::to_string(pd));
  if (next_mw_ == 0) return fail("memory window handles exhausted");
  // A window's handle is local; its R_Key, the capability, comes from bind_mw.
  const uint32_t handle = next_mw_++;
  windows_.emplace(handle, Window{.info = {.handle = handle,
                                           .pd = pd,
                                           .bound = false,
                                           .rkey = 0,
                                           .mr_lkey = 0,
                                           .va = 0,
                                           .length = 0,
                                           .access = 0}});
  ++pd_it->second.windows;
  ++counters_.mws_allocated;
  ++counters_.mws_live;
  return handle;
}

void MemoryTable::unbind(Window& window) {
  --window.region->bound_windows;
  window.region = nullptr;
  window.info.bound = false;
}

Expected<void, std::string> MemoryTable::dealloc_mw(uint32_t mw) {
  auto it = windows_.find(mw);
  if (it == windows_.end()) return fail("unknown memory window " + std::to_string(mw));
  Window& window = it->second;
  if (window.info.bound) unbind(window);
  if (window.info.rkey != 0) key_index_.erase(window.info.rkey);
  --pds_[window.info.pd].windows;
  --counters_.mws_live;
  windows_.erase(it);
  return {};
}

Expected<uint32_t, AccessError> MemoryTable::bind_mw(uint32_t mw, uint32_t mr_lkey, uint64_t va,
                                                     uint64_t length, uint32_t access,
                                                     std::optional<uint32_t> qp_pd) {
  auto window_it = windows_.find(mw);
  auto region_it = regions_.find(mr_lkey);
  if (window_it == windows_.end() || region_it == regions_.end()) {
    return Unexpected(AccessError::kInvalidKey);
  }
  Window& window = window_it->second;
  Region& region = region_it->second;
  if (!region.valid) return Unexpected(AccessError::kInvalidated);
  // C10-72: window, region and the QP posting the bind share one PD.
  if (window.info.pd != region.info.pd || (qp_pd && *qp_pd != window.info.pd)) {
    return Unexpected(AccessError::kWrongPd);
  }
  // o10-36.2.2: a type-2 window is bound only from the free state; rebinding means
  // invalidating first.
  if (window.info.bound) return Unexpected(AccessError::kNotPermitted);
  // C10-74/75 as rxe_check_bind_mw: the region must allow binding, and a window may grant
  // remote write or atomic only over a region its owner may write.
  if ((region.info.access & kMwBind) == 0 || (access & ~kAllAccess) != 0 ||
      ((access & (kRemoteWrite | kRemoteAtomic)) != 0 && (region.info.access & kLocalWrite) == 0)) {
    return Unexpected(AccessError::kNotPermitted);
  }
  // o10-37.2.40: a zero-length bind of a type-2 window is an error, not an unbind.
  if (length == 0) return Unexpected(AccessError::kOutOfRange);
  auto offset = offset_within(region.info.va, region.info.length, va, length);
  if (!offset) return Unexpected(AccessError::kOutOfRange);

  // Each bind gets a fresh R_Key (verbs lets the consumer pick the low byte, ibv_inc_rkey;
  // here the whole key comes from the generator so it stays unguessable).
  if (window.info.rkey != 0) key_index_.erase(window.info.rkey);
  window.info.rkey = fresh_key();
  key_index_.emplace(window.info.rkey, KeyEntry{KeyKind::kWindow, nullptr, &window});
  window.info.bound = true;
  window.info.mr_lkey = mr_lkey;
  window.info.va = va;
  window.info.length = length;
  window.info.access = access;
  window.region = &region;
  window.region_offset = *offset;
  ++region.bound_windows;
  ++counters_.mw_binds;
  return window.info.rkey;
}

Expected<MwInfo, std::string> MemoryTable::query_mw(uint32_t mw) const {
  auto it = windows_.find(mw);
  if (it == windows_.end()) return fail("unknown memory window " + std::to_string(mw));
  return it->second.info;
}

}  // namespace mr::memory
