// File: egress_queue.h
//
// One egress port's buffer: a FIFO of frames waiting for the wire, and the strict-priority
// FIFO that trimmed frames jump into (spec 23: forwarded "at high priority"). Depth counts
// waiting bytes; the frame being serialized has left the queue. Admission (capacity,
// marking, trimming) is the port's decision, made before push.
#pragma once

#include <cstdint>

#include "reference/io/fabric/ring_queue.h"

namespace mr::io::fabric {

class EgressQueue {
 public:
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
  // The priority queue first; the queue must not be empty.
  Entry pop() {
    if (!priority_.empty()) {
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

 private:
  RingQueue<Entry> normal_;
  RingQueue<Entry> priority_;
  uint64_t normal_bytes_ = 0;
  uint64_t priority_bytes_ = 0;
};

}  // namespace mr::io::fabric
