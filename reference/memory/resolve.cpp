// MemoryTable's key, bounds and access checks (spec section 11; rxe check_rkey, lookup_mr,
// rxe_lookup_mw, mr_check_range).
#include "reference/memory/memory_table.h"
#include "reference/memory/range.h"

namespace mr::memory {
namespace {

constexpr int index_of(AccessError e) { return static_cast<int>(e); }

}  // namespace

Expected<MemoryTable::Target, AccessError> MemoryTable::find_remote(
    uint32_t rkey, uint32_t pd, uint64_t va, uint64_t length, uint32_t required_access) const {
  auto it = key_index_.find(rkey);
  // MR-MP-01: the R_Key must name a region or window. An L_Key is not an R_Key.
  if (it == key_index_.end() || it->second.kind == KeyKind::kRegionLocal) {
    return Unexpected(AccessError::kInvalidKey);
  }
  const KeyEntry& entry = it->second;
  if (entry.kind == KeyKind::kRegionRemote) {
    const Region& region = *entry.region;
    if (!region.valid) return Unexpected(AccessError::kInvalidated);     // MR-MP-09, MR-MP-11
    if (region.info.pd != pd) return Unexpected(AccessError::kWrongPd);  // MR-MP-03
    if (!grants(region.info.access, required_access)) {
      return Unexpected(AccessError::kNotPermitted);  // MR-MP-04, MR-AT-05
    }
    auto offset = offset_within(region.info.va, region.info.length, va, length);
    if (!offset) return Unexpected(AccessError::kOutOfRange);  // MR-MP-02
    return Target{&region, *offset};
  }
  // A window: bound and of this PD, with the rights asked for, and the range inside the
  // window, which bind_mw placed inside its region.
  const Window& window = *entry.window;
  if (!window.info.bound) return Unexpected(AccessError::kInvalidated);
  if (window.info.pd != pd) return Unexpected(AccessError::kWrongPd);
  if (!grants(window.info.access, required_access)) {
    return Unexpected(AccessError::kNotPermitted);
  }
  // rxe: a zero-based window is addressed from 0, others by the VA they were bound at.
  const uint64_t base = (window.info.access & kZeroBased) != 0 ? 0 : window.info.va;
  auto offset = offset_within(base, window.info.length, va, length);
  if (!offset) return Unexpected(AccessError::kOutOfRange);
  return Target{window.region, window.region_offset + *offset};
}

Expected<std::span<uint8_t>, AccessError> MemoryTable::resolve_remote(
    uint32_t rkey, uint32_t pd, uint64_t va, uint64_t length, uint32_t required_access) const {
  // MR-MP-06, MR-RD-04: a zero-length WRITE or READ needs no valid R_Key or VA.
  if (length == 0) return std::span<uint8_t>{};
  ++counters_.remote_checks;
  auto target = find_remote(rkey, pd, va, length, required_access);
  if (!target) {
    ++counters_.remote_failures[index_of(target.error())];
    return Unexpected(target.error());
  }
  return target->region->storage->bytes().subspan(target->offset, length);
}

Expected<PinnedSpan, AccessError> MemoryTable::resolve_remote_pinned(
    uint32_t rkey, uint32_t pd, uint64_t va, uint64_t length, uint32_t required_access) const {
  if (length == 0) return PinnedSpan{};  // MR-MP-06, MR-RD-04
  ++counters_.remote_checks;
  auto target = find_remote(rkey, pd, va, length, required_access);
  if (!target) {
    ++counters_.remote_failures[index_of(target.error())];
    return Unexpected(target.error());
  }
  const auto& storage = target->region->storage;
  return PinnedSpan{storage->bytes().subspan(target->offset, length), storage};
}

Expected<std::span<uint8_t>, AccessError> MemoryTable::resolve_local(
    uint32_t lkey, uint32_t pd, uint64_t addr, uint64_t length, uint32_t required_access) const {
  // rxe copy_data looks up the key of an SGE only when the SGE has bytes to move.
  if (length == 0) return std::span<uint8_t>{};
  ++counters_.local_checks;
  auto error = [this](AccessError e) {
    ++counters_.local_failures[index_of(e)];
    return Unexpected(e);
  };
  auto it = key_index_.find(lkey);
  if (it == key_index_.end() || it->second.kind != KeyKind::kRegionLocal) {
    return error(AccessError::kInvalidKey);
  }
  const Region& region = *it->second.region;
  if (!region.valid) return error(AccessError::kInvalidated);
  if (region.info.pd != pd) return error(AccessError::kWrongPd);
  if (!grants(region.info.access, required_access)) return error(AccessError::kNotPermitted);
  auto offset = offset_within(region.info.va, region.info.length, addr, length);
  if (!offset) return error(AccessError::kOutOfRange);
  return region.storage->bytes().subspan(*offset, length);
}

std::optional<uint32_t> MemoryTable::rkey_pd(uint32_t rkey) const {
  const auto it = key_index_.find(rkey);
  if (it == key_index_.end() || it->second.kind == KeyKind::kRegionLocal) return std::nullopt;
  return it->second.kind == KeyKind::kWindow ? it->second.window->info.pd
                                             : it->second.region->info.pd;
}

}  // namespace mr::memory
