// File: bottleneck_queue.h
//
// The reference bottleneck of spec section 26.4, as a model on the frames' own timestamps:
// one first-in first-out queue served at a fixed rate (a frame occupies the wire for its
// bytes and 24 of Ethernet overhead), no loss, CE on every packet that leaves while more
// than K bytes of frames are queued behind it, and a fixed delay after the wire.
// A frame's departure is known when it arrives (a FIFO at a constant rate); its mark once
// every frame that arrived before it left the queue is known, which the caller guarantees by
// admitting frames in arrival order up to the head's departure before it pops.
//
//   BottleneckQueue q({.rate_mbps = 100'000, .ecn_k_bytes = 32'768, .delay_ns = 10'000});
//   q.admit(std::move(frame), t_ns);
//   if (q.next_out_ns() <= now) { auto leaving = q.pop(); ... }
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace mr::engine {

class BottleneckQueue {
 public:
  struct Config {
    uint64_t rate_mbps = 100'000;    // R_SC_TEST_RATE
    uint64_t ecn_k_bytes = 131'072;  // B_SC_TEST_ECN_K
    uint64_t delay_ns = 0;           // added after the wire
  };
  struct Leaving {
    std::vector<uint8_t> bytes;  // CE-marked when `marked`
    uint64_t arrival_ns = 0;
    uint64_t out_ns = 0;  // serialised and delayed: when it reaches the far side
    bool marked = false;
  };

  // What one frame occupies on an Ethernet wire beyond its bytes: preamble and start
  // delimiter (8), FCS (4), inter-frame gap (12).
  static constexpr uint64_t kWireOverheadBytes = 24;

  explicit BottleneckQueue(Config config) : config_(config) {}

  const Config& config() const { return config_; }
  void admit(std::vector<uint8_t> frame, uint64_t arrival_ns);
  bool empty() const { return fifo_.empty(); }
  // When the head frame reaches the far side; nullopt when the queue is empty.
  std::optional<uint64_t> next_out_ns() const;
  // The head frame; the queue must not be empty.
  Leaving pop();
  // The most frame bytes that ever waited behind a frame leaving (the queue's peak as the
  // marking rule sees it), and how many frames were marked: the ladder reports both.
  uint64_t peak_queued_bytes() const { return peak_queued_bytes_; }
  uint64_t marked() const { return marked_; }

 private:
  struct Entry {
    std::vector<uint8_t> bytes;
    uint64_t arrival_ns = 0;
    uint64_t start_ns = 0;  // leaves the queue: its first bit goes on the wire
    uint64_t out_ns = 0;
  };

  Config config_;
  std::deque<Entry> fifo_;
  uint64_t link_free_ns_ = 0;  // when the wire is free: whole ns ...
  uint64_t link_free_ps_ = 0;  // ... and picoseconds beyond them
  uint64_t peak_queued_bytes_ = 0;
  uint64_t marked_ = 0;
};

}  // namespace mr::engine
