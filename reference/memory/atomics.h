// File: atomics.h
//
// The two RDMA atomics on a resolved 8-byte target (IBTA ch. 9; spec section 10).
//
// Byte order: the 64-bit value is read and written in host byte order, as verbs devices
// deliver it: the AtomicETH carries compare, swap and add data big-endian on the wire, the
// responder converts them to host order, operates on memory as a host uint64_t, and returns
// the original value, which the transport puts big-endian into the AtomicAckETH. So a buffer
// the application filled with `uint64_t x = 5; memcpy(p, &x, 8)` reads as 5 remotely.
//
// Atomicity: the operations use std::atomic_ref<uint64_t>, so agents on several threads
// (several QPs of one device, or the agent's read_mem next to the transport) are serialized
// on each location: N concurrent FETCH_ADDs of 1 add exactly N (MR-AT-07).
//
//   auto target = table.resolve_remote(rkey, pd, va, 8, kRemoteAtomic);   // else NAK 0x62
//   auto original = atomic_fetch_add(*target, add);  // kMisaligned: NAK 0x61 (MR-AT-03)
//   // original goes back big-endian in the AtomicAckETH
#pragma once

#include <cstdint>
#include <span>

#include "reference/error/expected.h"
#include "reference/memory/access.h"

namespace mr::memory {

// Replaces the value at target with swap if it equals compare; returns the original value
// either way. kMisaligned when target is not 8-byte aligned (MR-AT-03), kOutOfRange when it
// is not exactly 8 bytes long.
Expected<uint64_t, AccessError> atomic_compare_swap(std::span<uint8_t> target, uint64_t compare,
                                                    uint64_t swap);

// Adds add (modulo 2^64) to the value at target; returns the original value. Errors as above.
Expected<uint64_t, AccessError> atomic_fetch_add(std::span<uint8_t> target, uint64_t add);

}  // namespace mr::memory
