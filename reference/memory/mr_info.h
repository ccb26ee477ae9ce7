// File: mr_info.h
//
// What a caller learns about a memory region or memory window: the values verbs returns in
// struct ibv_mr and struct ibv_mw, plus the binding of a window.
#pragma once

#include <cstdint>

namespace mr::memory {

// A registered memory region. lkey names it in local SGEs and is its handle for dereg_mr,
// write and read; rkey is what a peer puts into a RETH or AtomicETH. [va, va + length) is
// the address range both keys cover.
struct MrInfo {
  uint32_t pd;
  uint32_t lkey;
  uint32_t rkey;
  uint64_t va;
  uint64_t length;
  uint32_t access;
};

// A type-2 memory window (IBTA 10.6.7). handle names it locally; while bound, rkey grants
// access to [va, va + length) of the region mr_lkey (when access has kZeroBased, peers
// address the window as [0, length) and va is where it starts in the region's VA space).
struct MwInfo {
  uint32_t handle;
  uint32_t pd;
  bool bound;
  uint32_t rkey;  // 0 until the first bind; after invalidation the old, now useless, key
  uint32_t mr_lkey;
  uint64_t va;
  uint64_t length;
  uint32_t access;
};

}  // namespace mr::memory
