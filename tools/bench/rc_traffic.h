// File: rc_traffic.h
//
// Conformant RC traffic for the analyzer's benchmark: 1024 connections (requester
// 198.18.x.y, responder 198.19.x.y), operations picked at random and interleaved across
// them, each followed by its answer as a correct responder sends it. Operations: SEND ONLY
// and WRITE ONLY of 8..64 bytes, a 3-packet SEND at PMTU 256, READs of 8..64 bytes (one
// READ_RESPONSE_ONLY) and of 1024 bytes (FIRST, MIDDLE, MIDDLE, LAST), FETCH_ADD with its
// ATOMIC_ACKNOWLEDGE, CNPs (at most one per QP per 600 frames: 60 us when the caller stamps
// gaps of at least 100 ns, above MR-CC-03's 50 us), and a PSN-sequence recovery: a request lost
// after the capture point, the next one, NAK 0x60, both resent, ACK. A capture of it should analyze
// clean.
//
// Usage:
//   std::mt19937_64 rng(1);
//   write_rc_traffic(5'000'000, rng, [&](std::span<const uint8_t> f) { return w.write(f, t); });
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>

#include "reference/error/expected.h"

namespace mr::bench {

// Emits exactly `count` frames (the last operation may be cut short) through `emit`, whose
// first error stops the generation and is returned.
using EmitFrame = std::function<Expected<void, std::string>(std::span<const uint8_t>)>;
Expected<void, std::string> write_rc_traffic(uint64_t count, std::mt19937_64& rng,
                                             const EmitFrame& emit);

}  // namespace mr::bench
