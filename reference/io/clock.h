// File: clock.h
//
// Where the I/O layer gets "now" from. Links stamp frames and bound their waits with a
// Clock; tests and simulations pass a VirtualClock so that latency, timeouts and
// retransmission timers are deterministic and no test ever sleeps.
//
// Usage:
//   VirtualClock clock;             // starts at 0 ns
//   clock.advance(4096);            // a simulation loop moves time to the next event
//   SystemClock wall;  wall.now_ns();  // CLOCK_MONOTONIC
#pragma once

#include <cstdint>

namespace mr::io {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t now_ns() const = 0;
  // True when time moves only when someone sets it: a waiter must then return instead of
  // sleeping, because sleeping would never make the awaited moment come.
  virtual bool is_virtual() const = 0;
  // How long a waiter must really wait (sleep, poll) for `ns` of this clock's time: the same,
  // except on a dilated clock (dilated_clock.h).
  virtual uint64_t real_duration_ns(uint64_t ns) const { return ns; }
};

// CLOCK_MONOTONIC: never jumps with NTP or settimeofday, so deadlines stay meaningful.
class SystemClock final : public Clock {
 public:
  uint64_t now_ns() const override;
  bool is_virtual() const override { return false; }
};

// Time that only moves when told to. Not thread-safe: one simulation loop owns it.
class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(uint64_t start_ns = 0) : now_ns_(start_ns) {}
  uint64_t now_ns() const override { return now_ns_; }
  bool is_virtual() const override { return true; }

  void set(uint64_t now_ns) { now_ns_ = now_ns; }
  void advance(uint64_t delta_ns) { now_ns_ += delta_ns; }

 private:
  uint64_t now_ns_;
};

}  // namespace mr::io
