#include "reference/memory/memory_table.h"

#include <algorithm>
#include <limits>
#include <new>

#include "reference/memory/range.h"

namespace mr::memory {
namespace {

Unexpected<std::string> fail(std::string message) { return Unexpected(std::move(message)); }

std::string hex(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value & 0xf]);
    value >>= 4;
  } while (value != 0);
  return "0x" + out;
}

}  // namespace

MemoryTable::MemoryTable(uint64_t key_seed) : keys_(key_seed) {}

uint32_t MemoryTable::fresh_key() {
  // The generator repeats only after 2^32 - 1 keys; the check keeps a live key unique even
  // then.
  for (;;) {
    const uint32_t key = keys_.next();
    if (!key_index_.contains(key)) return key;
  }
}

Expected<uint32_t, std::string> MemoryTable::alloc_pd() {
  // PD handles never leave the device, so a counter is enough; 0 stays unused.
  if (next_pd_ == 0) return fail("protection domain handles exhausted");
  const uint32_t pd = next_pd_++;
  pds_.emplace(pd, Pd{});
  ++counters_.pds_allocated;
  ++counters_.pds_live;
  return pd;
}

Expected<void, std::string> MemoryTable::dealloc_pd(uint32_t pd) {
  auto it = pds_.find(pd);
  if (it == pds_.end()) return fail("unknown protection domain " + std::to_string(pd));
  if (it->second.regions != 0 || it->second.windows != 0) {
    return fail("protection domain " + std::to_string(pd) + " is in use by " +
                std::to_string(it->second.regions) + " memory regions and " +
                std::to_string(it->second.windows) + " memory windows");
  }
  pds_.erase(it);
  --counters_.pds_live;
  return {};
}

Expected<MrInfo, std::string> MemoryTable::reg_mr(uint32_t pd, uint64_t length, uint32_t access,
                                                  std::optional<uint64_t> va) {
  auto pd_it = pds_.find(pd);
  if (pd_it == pds_.end()) return fail("unknown protection domain " + std::to_string(pd));
  if (auto why = check_mr_access(access)) return fail(std::move(*why));
  // A zero-based region would need one address for local SGEs and another for peers; an
  // explicit va = 0 gives peers the same zero-based view without that split.
  if ((access & kZeroBased) != 0) return fail("zero-based memory regions are not supported");
  if (length > kMaxMrSize) {
    return fail("length " + std::to_string(length) + " exceeds the maximum region size " +
                std::to_string(kMaxMrSize));
  }
  if (va && length != 0 && length - 1 > std::numeric_limits<uint64_t>::max() - *va) {
    return fail("va " + hex(*va) + " + length " + std::to_string(length) + " exceeds 2^64");
  }

  std::shared_ptr<RegionStorage> storage;
  try {
    storage = std::make_shared<RegionStorage>(length, va.value_or(0) % kCacheLine);
  } catch (const std::bad_alloc&) {
    return fail("memory exhausted: cannot allocate " + std::to_string(length) +
                " bytes for the region");
  }
  MrInfo info{.pd = pd,
              .lkey = fresh_key(),
              .rkey = 0,
              .va = va.value_or(storage->address()),
              .length = length,
              .access = access};
  // Distinct L_Key and R_Key (rxe makes them equal): the L_Key never goes on the wire, so a
  // peer cannot use it, and an R_Key put into a local SGE is refused.
  key_index_.emplace(info.lkey, KeyEntry{KeyKind::kRegionLocal, nullptr, nullptr});
  info.rkey = fresh_key();
  auto [it, inserted] = regions_.emplace(info.lkey, Region{info, std::move(storage)});
  key_index_[info.lkey].region = &it->second;
  key_index_.emplace(info.rkey, KeyEntry{KeyKind::kRegionRemote, &it->second, nullptr});

  ++pd_it->second.regions;
  ++counters_.mr_registrations;
  ++counters_.mrs_live;
  counters_.mr_bytes_live += length;
  return info;
}

Expected<void, std::string> MemoryTable::dereg_mr(uint32_t lkey) {
  auto it = regions_.find(lkey);
  if (it == regions_.end()) return fail("unknown L_Key " + hex(lkey));
  Region& region = it->second;
  if (region.bound_windows != 0) {
    return fail("memory region " + hex(lkey) + " has " + std::to_string(region.bound_windows) +
                " memory windows bound to it");
  }
  key_index_.erase(region.info.lkey);
  key_index_.erase(region.info.rkey);
  --pds_[region.info.pd].regions;
  ++counters_.mr_deregistrations;
  --counters_.mrs_live;
  counters_.mr_bytes_live -= region.info.length;
  // Storage pinned by resolve_remote_pinned outlives this erase.
  regions_.erase(it);
  return {};
}

Expected<const MemoryTable::Region*, std::string> MemoryTable::find_region(uint32_t lkey) const {
  auto it = regions_.find(lkey);
  if (it == regions_.end()) return fail("unknown L_Key " + hex(lkey));
  return &it->second;
}

Expected<MrInfo, std::string> MemoryTable::query_mr(uint32_t lkey) const {
  auto region = find_region(lkey);
  if (!region) return fail(region.error());
  return (*region)->info;
}

Expected<void, std::string> MemoryTable::write(uint32_t lkey, uint64_t va,
                                               std::span<const uint8_t> data) {
  auto region = find_region(lkey);
  if (!region) return fail(region.error());
  const MrInfo& info = (*region)->info;
  auto offset = offset_within(info.va, info.length, va, data.size());
  if (!offset) {
    return fail("write of " + std::to_string(data.size()) + " bytes at " + hex(va) +
                " is outside region [" + hex(info.va) + ", +" + std::to_string(info.length) + ")");
  }
  std::ranges::copy(data, (*region)->storage->bytes().subspan(*offset).begin());
  return {};
}

Expected<std::vector<uint8_t>, std::string> MemoryTable::read(uint32_t lkey, uint64_t va,
                                                              uint64_t length) const {
  auto region = find_region(lkey);
  if (!region) return fail(region.error());
  const MrInfo& info = (*region)->info;
  auto offset = offset_within(info.va, info.length, va, length);
  if (!offset) {
    return fail("read of " + std::to_string(length) + " bytes at " + hex(va) +
                " is outside region [" + hex(info.va) + ", +" + std::to_string(info.length) + ")");
  }
  auto bytes = (*region)->storage->bytes().subspan(*offset, length);
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

}  // namespace mr::memory
