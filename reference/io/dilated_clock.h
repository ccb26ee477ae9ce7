// File: dilated_clock.h
//
// Time that runs `factor` times slower than a real clock: a time dilation factor (TDF), as
// network emulators use it to make a slow testbed look fast (DieCast, Gupta et al., NSDI
// 2008). Here it makes a software device's microsecond timers outlast a software tester's
// reaction on a real-clock test bed: the reference agent and the harness both dilate by the
// same factor (the agent states it in its capabilities), so every time either judges is the
// same as on a fast bed, while the frames really cross namespaces and veth pairs.
//
// Usage:
//   SystemClock wall;
//   DilatedClock bed(wall, 20);        // 1 ms of wall time is 50 us of `bed` time
//   bed.real_duration_ns(50'000);      // 1'000'000: how long to really wait for 50 us
#pragma once

#include <cstdint>

#include "reference/io/clock.h"

namespace mr::io {

// The mapping itself, from an origin where both times agree; for clocks that are not an
// io::Clock (libpcap's CLOCK_REALTIME stamps).
class TimeDilation {
 public:
  TimeDilation(uint32_t factor, uint64_t origin_ns)
      : factor_(factor == 0 ? 1 : factor), origin_ns_(origin_ns) {}
  uint32_t factor() const { return factor_; }
  uint64_t dilated(uint64_t real_ns) const {
    return real_ns >= origin_ns_ ? origin_ns_ + (real_ns - origin_ns_) / factor_
                                 : origin_ns_ - (origin_ns_ - real_ns) / factor_;
  }
  // How long to wait in real time for `dilated_ns` of dilated time (saturating).
  uint64_t real_duration(uint64_t dilated_ns) const {
    return dilated_ns > UINT64_MAX / factor_ ? UINT64_MAX : dilated_ns * factor_;
  }

 private:
  uint32_t factor_;
  uint64_t origin_ns_;
};

class DilatedClock final : public Clock {
 public:
  // `inner` must outlive this clock; dilated and inner time agree at construction.
  DilatedClock(const Clock& inner, uint32_t factor)
      : inner_(inner), dilation_(factor, inner.now_ns()) {}
  uint64_t now_ns() const override { return dilation_.dilated(inner_.now_ns()); }
  bool is_virtual() const override { return inner_.is_virtual(); }
  uint64_t real_duration_ns(uint64_t ns) const override { return dilation_.real_duration(ns); }
  uint32_t factor() const { return dilation_.factor(); }

 private:
  const Clock& inner_;
  TimeDilation dilation_;
};

}  // namespace mr::io
