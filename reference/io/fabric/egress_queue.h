// File: egress_queue.h
//
// One egress port's buffer: two FIFOs of frames waiting for the wire. On a switch port the
// second is the strict-priority FIFO that trimmed frames jump into (spec 23: forwarded "at
// high priority"); on an endpoint's port it holds what the NIC's responder sends, and the
// two take turns (Arbitration::kAlternate), as a NIC's transmit arbiter serves its
// requester and its responder. Depth counts waiting bytes; the frame being serialized has
// left the queue. Admission (capacity, marking, trimming) is the port's decision.
#pragma once

#include <cstdint>

#include "reference/io/fabric/ring_queue.h"

namespace mr::io::fabric {

class EgressQueue {
 public:
  enum class Arbitration : uint8_t { kStrictPriority, kAlternate };

  struct Entry {
    uint32_t packet = 0;
    uint32_t bytes = 0;
  };

  void push(Entry entry, bool priority) {
    if (priority) {
      priority_.push_back(entry);
      priority_bytes_ += entry.bytes;
    } else {
      normal_.push_back(entry);
      normal_bytes_ += entry.bytes;
    }
  }
  // The priority queue first, or each in turn while both hold frames; the queue must not be
  // empty.
  Entry pop() {
    const bool second =
        !priority_.empty() &&
        (normal_.empty() || arbitration_ == Arbitration::kStrictPriority || !served_priority_last_);
    served_priority_last_ = second;
    if (second) {
      const Entry e = priority_.pop_front();
      priority_bytes_ -= e.bytes;
      return e;
    }
    const Entry e = normal_.pop_front();
    normal_bytes_ -= e.bytes;
    return e;
  }
  bool empty() const { return normal_.empty() && priority_.empty(); }
  uint64_t normal_bytes() const { return normal_bytes_; }
  uint64_t priority_bytes() const { return priority_bytes_; }
  uint64_t bytes() const { return normal_bytes_ + priority_bytes_; }
  void set_arbitration(Arbitration a) { arbitration_ = a; }

 private:
  Arbitration arbitration_ = Arbitration::kStrictPriority;
  bool served_priority_last_ = false;
  RingQueue<Entry> normal_;
  RingQueue<Entry> priority_;
  uint64_t normal_bytes_ = 0;
  uint64_t priority_bytes_ = 0;
};

}  // namespace mr::io::fabric
