// File: memory_table.h
//
// The memory model of one reference device: protection domains, memory regions with table-
// owned storage, type-2 memory windows, their keys, and the key, bounds and access checks of
// spec section 11 (as Linux rxe makes them in check_rkey, lookup_mr and mr_check_range).
//
// One table per device. Not thread-safe, by design: the device serializes every verb and
// every packet it processes. Only the atomics of atomics.h are safe to run concurrently on
// resolved spans. Key lookups are one hash-table probe (the transport resolves an R_Key on
// every WRITE FIRST/ONLY, READ and ATOMIC).
//
//   MemoryTable table(seed);                     // log the seed: keys are reproducible
//   uint32_t pd = *table.alloc_pd();
//   MrInfo mr = *table.reg_mr(pd, 4096, kLocalWrite | kRemoteWrite, 0x10000000);
//   // responder, at a WRITE FIRST with RETH (va, rkey, dma_length):
//   auto bytes = table.resolve_remote(rkey, qp_pd, va, dma_length, kRemoteWrite);
//   if (!bytes) { ... NAK 0x62, counted under bytes.error() ... }
//
// Lifetimes: a span from resolve_* stays valid until the region is deregistered. A caller
// that keeps a span across verbs the agent may run (the rest of a multi-packet WRITE, a READ
// being answered) takes resolve_remote_pinned, whose owner keeps the bytes alive after
// dereg_mr, as rxe keeps a reference on the MR.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "reference/error/expected.h"
#include "reference/memory/access.h"
#include "reference/memory/key_generator.h"
#include "reference/memory/memory_counters.h"
#include "reference/memory/mr_info.h"
#include "reference/memory/region_storage.h"

namespace mr::memory {

// The largest region reg_mr accepts (the device's max_mr_size).
inline constexpr uint64_t kMaxMrSize = uint64_t{1} << 32;

// Bytes resolved for a remote access, with a share in the storage behind them.
struct PinnedSpan {
  std::span<uint8_t> bytes;
  std::shared_ptr<const void> owner;  // null for an empty span
};

class MemoryTable {
 public:
  explicit MemoryTable(uint64_t key_seed);
  MemoryTable(const MemoryTable&) = delete;
  MemoryTable& operator=(const MemoryTable&) = delete;

  uint64_t key_seed() const { return keys_.seed(); }

  // --- Protection domains (memory_table.cpp) ---
  Expected<uint32_t, std::string> alloc_pd();
  // Fails while a region or window of the PD exists (verbs: EBUSY).
  Expected<void, std::string> dealloc_pd(uint32_t pd);

  // --- Memory regions (memory_table.cpp) ---
  // Registers length bytes of fresh zero-filled storage. va defaults to the storage's own
  // address, as verbs registers process memory; an explicit va only names the region (it
  // need not be a real address) and keeps remote addresses reproducible. Refused: unknown
  // PD, access bits check_mr_access refuses, kZeroBased (give va = 0 instead), length above
  // kMaxMrSize, va + length beyond 2^64.
  Expected<MrInfo, std::string> reg_mr(uint32_t pd, uint64_t length, uint32_t access,
                                       std::optional<uint64_t> va = {});
  // Fails while windows are bound to the region (verbs: EBUSY; rxe: EINVAL).
  Expected<void, std::string> dereg_mr(uint32_t lkey);
  Expected<MrInfo, std::string> query_mr(uint32_t lkey) const;

  // The agent's write_mem and read_mem: plain copies into and out of a registered region by
  // its L_Key, with a bounds check. The agent stands for the process that owns the memory,
  // so no access flag is needed and an invalidated region can still be read and written.
  Expected<void, std::string> write(uint32_t lkey, uint64_t va, std::span<const uint8_t> data);
  Expected<std::vector<uint8_t>, std::string> read(uint32_t lkey, uint64_t va,
                                                   uint64_t length) const;

  // --- Checks (resolve.cpp) ---
  // The responder's R_Key check for a WRITE, READ or ATOMIC: rkey names a valid region or
  // bound window (MR-MP-01), not invalidated (MR-MP-09), of protection domain pd (MR-MP-03),
  // whose access includes required_access (MR-MP-04, MR-AT-05), and [va, va + length) lies
  // inside it (MR-MP-02). Checked in that order; the first failure is the error. A length of
  // 0 succeeds with an empty span whatever rkey and va are (MR-MP-06, MR-RD-04).
  Expected<std::span<uint8_t>, AccessError> resolve_remote(uint32_t rkey, uint32_t pd, uint64_t va,
                                                           uint64_t length,
                                                           uint32_t required_access) const;
  Expected<PinnedSpan, AccessError> resolve_remote_pinned(uint32_t rkey, uint32_t pd, uint64_t va,
                                                          uint64_t length,
                                                          uint32_t required_access) const;
  // The same check for an SGE of a posted work request, by L_Key: required_access is
  // kLocalWrite for a scatter (receive buffer, READ or atomic result) and 0 for a gather.
  // A zero-length SGE succeeds whatever its key, as rxe copy_data skips it.
  Expected<std::span<uint8_t>, AccessError> resolve_local(uint32_t lkey, uint32_t pd, uint64_t addr,
                                                          uint64_t length,
                                                          uint32_t required_access) const;

  // --- Invalidation (invalidate.cpp) ---
  // SEND_WITH_INVALIDATE (MR-MP-09): invalidates the region or window the R_Key names.
  // Errors: kInvalidKey (no such R_Key), kWrongPd (key of another PD than the QP's),
  // kInvalidated (already invalid), kNotPermitted (a region with windows bound to it).
  // An invalidated region refuses both its keys until it is deregistered; an invalidated
  // window is unbound and can be bound again, under a new R_Key.
  Expected<void, AccessError> invalidate_rkey(uint32_t rkey, uint32_t pd);
  // Whether invalidate_rkey(rkey, pd) would succeed now, changing nothing: a responder checks
  // it when a SEND with invalidate arrives and invalidates later, when the message completes.
  Expected<void, AccessError> may_invalidate_rkey(uint32_t rkey, uint32_t pd) const;
  // LOCAL_INV: as invalidate_rkey, but the key may also be the region's L_Key.
  Expected<void, AccessError> local_invalidate(uint32_t key, uint32_t pd);

  // --- Memory windows, type 2 (memory_window.cpp) ---
  Expected<uint32_t, std::string> alloc_mw(uint32_t pd);
  // Unbinds the window first if it is bound.
  Expected<void, std::string> dealloc_mw(uint32_t mw);
  // A BIND_MW work request: binds the unbound window mw to [va, va + length) of region
  // mr_lkey with the remote rights in access (and kZeroBased), and returns its new R_Key.
  // qp_pd is the PD of the QP the bind is posted on, when the caller wants it checked.
  // Errors: kInvalidKey (unknown window or region), kInvalidated (region invalidated),
  // kWrongPd (window, region and QP not all of one PD), kNotPermitted (window already bound,
  // region without kMwBind, remote write or atomic on a region without local write, unknown
  // access bits), kOutOfRange (zero length, or outside the region).
  Expected<uint32_t, AccessError> bind_mw(uint32_t mw, uint32_t mr_lkey, uint64_t va,
                                          uint64_t length, uint32_t access,
                                          std::optional<uint32_t> qp_pd = {});
  Expected<MwInfo, std::string> query_mw(uint32_t mw) const;

  // The protection domain an R_Key (of a region or a bound window) belongs to, whatever PD
  // asks: for diagnostics, and for the reference's rkey-pd-not-checked mutant.
  std::optional<uint32_t> rkey_pd(uint32_t rkey) const;

  const MemoryCounters& counters() const { return counters_; }

 private:
  struct Pd {
    uint32_t regions = 0;
    uint32_t windows = 0;
  };
  struct Region {
    MrInfo info;
    std::shared_ptr<RegionStorage> storage;
    bool valid = true;
    uint32_t bound_windows = 0;
  };
  struct Window {
    MwInfo info;
    Region* region = nullptr;  // while bound
    uint64_t region_offset = 0;
  };
  enum class KeyKind : uint8_t { kRegionLocal, kRegionRemote, kWindow };
  // Pointers into regions_ and windows_: elements of an unordered_map keep their address
  // until erased, and a key is erased before the element it points to.
  struct KeyEntry {
    KeyKind kind;
    Region* region;
    Window* window;
  };
  // A resolved access: the region's storage and the offset of the first byte.
  struct Target {
    const Region* region;
    uint64_t offset;
  };

  uint32_t fresh_key();
  Expected<Target, AccessError> find_remote(uint32_t rkey, uint32_t pd, uint64_t va,
                                            uint64_t length, uint32_t required_access) const;
  Expected<void, AccessError> invalidate(const KeyEntry& entry, uint32_t pd);
  static Expected<void, AccessError> invalidation_error(const KeyEntry& entry, uint32_t pd);
  const KeyEntry* remote_key(uint32_t rkey) const;
  void unbind(Window& window);
  Expected<const Region*, std::string> find_region(uint32_t lkey) const;

  KeyGenerator keys_;
  uint32_t next_pd_ = 1;
  uint32_t next_mw_ = 1;
  std::unordered_map<uint32_t, Pd> pds_;
  std::unordered_map<uint32_t, Region> regions_;  // by L_Key
  std::unordered_map<uint32_t, Window> windows_;  // by handle
  std::unordered_map<uint32_t, KeyEntry> key_index_;
  mutable MemoryCounters counters_;
};

}  // namespace mr::memory
