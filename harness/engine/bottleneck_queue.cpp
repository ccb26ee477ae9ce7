#include "harness/engine/bottleneck_queue.h"

#include <algorithm>

#include "reference/io/ecn_mark.h"

namespace mr::engine {

void BottleneckQueue::admit(std::vector<uint8_t> frame, uint64_t arrival_ns) {
  const uint64_t wire_bytes = frame.size() + kWireOverheadBytes;
  const uint64_t rate = std::max<uint64_t>(config_.rate_mbps, 1);
  const uint64_t start_ps = std::max(arrival_ns * 1000, link_free_ps_);
  // bits / (Mbit/s) = us; x 1e6 for picoseconds.
  link_free_ps_ = start_ps + wire_bytes * 8 * 1'000'000 / rate;
  fifo_.push_back({.bytes = std::move(frame),
                   .arrival_ns = arrival_ns,
                   .start_ns = start_ps / 1000,
                   .out_ns = link_free_ps_ / 1000 + config_.delay_ns,
                   .wire_bytes = wire_bytes});
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
    behind += e.wire_bytes;
  }
  peak_queued_bytes_ = std::max(peak_queued_bytes_, behind);
  Leaving out{.arrival_ns = head.arrival_ns, .out_ns = head.out_ns};
  out.marked = behind > config_.ecn_k_bytes && io::mark_ecn_ce(head.bytes);
  if (out.marked) ++marked_;
  out.bytes = std::move(head.bytes);
  return out;
}

}  // namespace mr::engine
