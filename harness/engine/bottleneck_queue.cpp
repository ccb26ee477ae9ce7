#include "harness/engine/bottleneck_queue.h"

#include <algorithm>

#include "reference/io/ecn_mark.h"

namespace mr::engine {

void BottleneckQueue::admit(std::vector<uint8_t> frame, uint64_t arrival_ns) {
  const uint64_t wire_bytes = frame.size() + kWireOverheadBytes;
  const uint64_t rate = std::max<uint64_t>(config_.rate_mbps, 1);
  // Nanoseconds and a picosecond remainder: a real clock's times (since 1970) have no room
  // for a factor of 1,000, and a frame's wire time is rarely whole nanoseconds.
  uint64_t start_ns = link_free_ns_;
  if (arrival_ns > link_free_ns_ || (arrival_ns == link_free_ns_ && link_free_ps_ == 0)) {
    start_ns = arrival_ns;
    link_free_ps_ = 0;
  }
  // bits / (Mbit/s) = us; x 1e6 for picoseconds.
  const uint64_t busy_ps = link_free_ps_ + wire_bytes * 8 * 1'000'000 / rate;
  link_free_ns_ = start_ns + busy_ps / 1000;
  link_free_ps_ = busy_ps % 1000;
  fifo_.push_back({.bytes = std::move(frame),
                   .arrival_ns = arrival_ns,
                   .start_ns = start_ns,
                   .out_ns = link_free_ns_ + config_.delay_ns});
}

std::optional<uint64_t> BottleneckQueue::next_out_ns() const {
  if (fifo_.empty()) return std::nullopt;
  return fifo_.front().out_ns;
}

BottleneckQueue::Leaving BottleneckQueue::pop() {
  Entry head = std::move(fifo_.front());
  fifo_.pop_front();
  // Queued behind it as it left: the frames after it that had arrived by then.
  uint64_t behind = 0;
  for (const Entry& e : fifo_) {
    if (e.arrival_ns > head.start_ns) break;  // arrival order: none later did either
    behind += e.bytes.size();
  }
  peak_queued_bytes_ = std::max(peak_queued_bytes_, behind);
  Leaving out{.arrival_ns = head.arrival_ns, .out_ns = head.out_ns};
  out.marked = behind > config_.ecn_k_bytes && io::mark_ecn_ce(head.bytes);
  if (out.marked) ++marked_;
  out.bytes = std::move(head.bytes);
  return out;
}

}  // namespace mr::engine
