// File: fabric_counters.h
//
// What each directed link of the fabric did: frames and bytes it put on the wire, frames
// it lost by cause, ECN marks and trims it applied, and the deepest its egress queue got.
// A plane's counters are the sum over its links (the maximum for the queue depth).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mr::io::fabric {

enum class DropCause : uint8_t {
  kQueueOverflow,  // tail drop: the egress queue (or an endpoint's receive ring) was full
  kBlackHole,      // a black-holed plane or cable
  kLinkDown,       // a flapping cable, during its down time
  kRandomLoss,     // the seeded per-link loss
  kUnroutable,     // unreadable, not IP, or addressed to no endpoint of the plane
};
inline constexpr size_t kDropCauseCount = 5;

constexpr std::string_view drop_cause_name(DropCause cause) {
  constexpr std::array<std::string_view, kDropCauseCount> kNames = {
      "queue_overflow", "black_hole", "link_down", "random_loss", "unroutable"};
  return kNames[static_cast<size_t>(cause)];
}

struct LinkCounters {
  uint64_t frames_sent = 0;  // serialized onto the wire (a randomly lost frame included)
  uint64_t bytes_sent = 0;
  std::array<uint64_t, kDropCauseCount> drops{};
  uint64_t ecn_marked = 0;       // set to CE by this port
  uint64_t trimmed = 0;          // cut and re-marked by this port
  uint64_t max_queue_bytes = 0;  // waiting bytes, both queues, just after an enqueue

  uint64_t dropped(DropCause cause) const { return drops[static_cast<size_t>(cause)]; }
  uint64_t dropped() const {
    uint64_t sum = 0;
    for (uint64_t d : drops) sum += d;
    return sum;
  }
  LinkCounters& operator+=(const LinkCounters& o) {
    frames_sent += o.frames_sent;
    bytes_sent += o.bytes_sent;
    for (size_t i = 0; i < kDropCauseCount; ++i) drops[i] += o.drops[i];
    ecn_marked += o.ecn_marked;
    trimmed += o.trimmed;
    max_queue_bytes = std::max(max_queue_bytes, o.max_queue_bytes);
    return *this;
  }
  friend bool operator==(const LinkCounters&, const LinkCounters&) = default;
};

}  // namespace mr::io::fabric
