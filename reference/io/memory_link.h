// File: memory_link.h
//
// Two Link endpoints joined in memory: what one sends, the other receives, in order, after
// a configurable one-way latency measured on a shared Clock. The default link for the
// suite (like DPDK's net_ring): no kernel, no root, and with a VirtualClock fully
// deterministic.
//
// Each direction is a queue of bounded capacity (a full queue drops the frame and counts
// it, as a switch port would) and may carry an ImpairmentPolicy. A frame sent at time t
// becomes receivable at t + latency (+ the policy's extra delay); it is stamped with that
// arrival time.
//
// With a VirtualClock nothing ever sleeps: receive_burst returns what is deliverable now,
// whatever the timeout, and a simulation loop advances the clock to next_delivery_ns().
// With a SystemClock, receive_burst waits (bounded by its timeout) and the pair may be
// used from two threads.
//
// Usage:
//   VirtualClock clock;
//   MemoryLinkPair pair(clock, {.latency_ns = 2'000});
//   pair.a().send_burst(frames);
//   if (auto t = pair.next_delivery_ns()) clock.set(*t);
//   size_t n = pair.b().receive_burst(out, 0);
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "reference/io/clock.h"
#include "reference/io/impairment.h"
#include "reference/io/link.h"

namespace mr::io {

struct MemoryLinkOptions {
  size_t capacity = 4096;   // frames queued per direction before tail drop
  uint64_t latency_ns = 0;  // one way
};

struct MemoryLinkCounters {
  uint64_t sent = 0;            // frames offered by the sender
  uint64_t delivered = 0;       // frames handed to the receiver
  uint64_t overflow_drops = 0;  // frames lost to a full queue
};

class MemoryLinkPair {
 public:
  enum class Direction { kAToB, kBToA };

  explicit MemoryLinkPair(const Clock& clock, MemoryLinkOptions options = {});
  // Endpoints refer to the pair's queues: it stays where it was made.
  MemoryLinkPair(const MemoryLinkPair&) = delete;
  MemoryLinkPair& operator=(const MemoryLinkPair&) = delete;

  Link& a() { return a_; }
  Link& b() { return b_; }

  // Replaces the policy for frames travelling in `direction`.
  void set_impairment(Direction direction, ImpairmentPolicy policy);
  void clear_impairment(Direction direction);
  // Null when the direction has no policy. Read its seed() and counters() for the log.
  const ImpairmentPolicy* impairment(Direction direction) const;

  // The earliest arrival time of any queued frame in either direction, if any.
  std::optional<uint64_t> next_delivery_ns() const;
  MemoryLinkCounters counters(Direction direction) const;
  // Delivers a frame a reorder policy holds back waiting for a successor (see
  // ImpairmentPolicy::release_held); for simulations that stop sending.
  void release_held();

 private:
  // One direction: a queue ordered by arrival time, FIFO among equal times.
  class Channel {
   public:
    Channel(const Clock& clock, MemoryLinkOptions options) : clock_(clock), options_(options) {}
    size_t send(std::span<const Frame> frames);
    size_t receive(std::span<Frame> out, uint64_t timeout_ns);
    std::optional<uint64_t> next_delivery_ns() const;
    void set_impairment(std::optional<ImpairmentPolicy> policy);
    const ImpairmentPolicy* impairment() const;
    MemoryLinkCounters counters() const;
    void release_held();

   private:
    struct Pending {
      Frame frame;
      uint64_t arrival_ns;
    };
    void enqueue(Frame frame, uint64_t arrival_ns);          // mutex held
    size_t take_due(std::span<Frame> out, uint64_t now_ns);  // mutex held

    const Clock& clock_;
    const MemoryLinkOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable arrived_;
    std::deque<Pending> queue_;
    std::optional<ImpairmentPolicy> impairment_;
    std::vector<ImpairedFrame> impaired_;  // scratch, reused
    MemoryLinkCounters counters_;
  };

  class Endpoint final : public Link {
   public:
    Endpoint(std::string name, Channel& tx, Channel& rx)
        : name_(std::move(name)), tx_(tx), rx_(rx) {}
    size_t send_burst(std::span<const Frame> frames) override { return tx_.send(frames); }
    size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) override {
      return rx_.receive(out, timeout_ns);
    }
    std::string name() const override { return name_; }

   private:
    std::string name_;
    Channel& tx_;
    Channel& rx_;
  };

  Channel& channel(Direction d) { return d == Direction::kAToB ? a_to_b_ : b_to_a_; }
  const Channel& channel(Direction d) const { return d == Direction::kAToB ? a_to_b_ : b_to_a_; }

  Channel a_to_b_;
  Channel b_to_a_;
  Endpoint a_;
  Endpoint b_;
};

}  // namespace mr::io
