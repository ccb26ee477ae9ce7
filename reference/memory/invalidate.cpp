// MemoryTable's invalidation: SEND_WITH_INVALIDATE (MR-MP-09) and LOCAL_INV.
//
// Which keys may be invalidated: the spec (MR-MP-09, pics rc.inv) says a responder
// "invalidates the R_Key in the IETH" and sets no condition on how the region was created,
// so every region and every bound type-2 window may be invalidated by its R_Key, provided
// the key belongs to the QP's protection domain. Verbs narrows remote invalidation to
// fast-registration regions and windows (rxe_invalidate_mr refuses IB_MR_TYPE_USER); the
// DUT control protocol only has reg_mr, so following verbs would make MR-MP-09 untestable.
// As in rxe, a region with windows bound to it cannot be invalidated.
#include "reference/memory/memory_table.h"

namespace mr::memory {

// Why `entry` cannot be invalidated by a QP of protection domain pd, if it cannot.
Expected<void, AccessError> MemoryTable::invalidation_error(const KeyEntry& entry, uint32_t pd) {
  if (entry.kind == KeyKind::kWindow) {
    const Window& window = *entry.window;
    if (window.info.pd != pd) return Unexpected(AccessError::kWrongPd);
    if (!window.info.bound) return Unexpected(AccessError::kInvalidated);
    return {};
  }
  const Region& region = *entry.region;
  if (region.info.pd != pd) return Unexpected(AccessError::kWrongPd);
  if (!region.valid) return Unexpected(AccessError::kInvalidated);
  if (region.bound_windows != 0) return Unexpected(AccessError::kNotPermitted);
  return {};
}

Expected<void, AccessError> MemoryTable::invalidate(const KeyEntry& entry, uint32_t pd) {
  if (auto error = invalidation_error(entry, pd); !error) return error;
  if (entry.kind == KeyKind::kWindow) {
    unbind(*entry.window);
  } else {
    entry.region->valid = false;
  }
  ++counters_.invalidations;
  return {};
}

// A peer only ever learns R_Keys; an L_Key in an IETH names nothing.
const MemoryTable::KeyEntry* MemoryTable::remote_key(uint32_t rkey) const {
  auto it = key_index_.find(rkey);
  if (it == key_index_.end() || it->second.kind == KeyKind::kRegionLocal) return nullptr;
  return &it->second;
}

Expected<void, AccessError> MemoryTable::invalidate_rkey(uint32_t rkey, uint32_t pd) {
  const KeyEntry* entry = remote_key(rkey);
  if (entry == nullptr) return Unexpected(AccessError::kInvalidKey);
  return invalidate(*entry, pd);
}

Expected<void, AccessError> MemoryTable::may_invalidate_rkey(uint32_t rkey, uint32_t pd) const {
  const KeyEntry* entry = remote_key(rkey);
  if (entry == nullptr) return Unexpected(AccessError::kInvalidKey);
  return invalidation_error(*entry, pd);
}

Expected<void, AccessError> MemoryTable::local_invalidate(uint32_t key, uint32_t pd) {
  auto it = key_index_.find(key);
  if (it == key_index_.end()) return Unexpected(AccessError::kInvalidKey);
  return invalidate(it->second, pd);
}

}  // namespace mr::memory
