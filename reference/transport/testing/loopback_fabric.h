// File: testing/loopback_fabric.h
//
// Two reference devices wired back to back on a virtual clock, for transport tests:
// frames cross with a fixed latency, optionally impaired (drop, duplicate, reorder,
// corrupt) by a seeded generator or by a test's own predicate. `run_until` advances time
// event by event, so a test of a 4-second retry runs in microseconds and the same seed
// gives the same run.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "reference/transport/device.h"

namespace mr::transport::testing {

struct Impairment {
  double drop = 0;
  double duplicate = 0;
  double reorder = 0;
  double corrupt = 0;
};

struct InFlight {
  uint64_t at_ns;
  uint64_t seq;  // tie-break: FIFO among equal times
  int to;        // 0 = device a, 1 = device b
  std::vector<uint8_t> frame;
};

class LoopbackFabric {
 public:
  LoopbackFabric(Device& a, Device& b, uint64_t seed, uint64_t latency_ns = 1000)
      : devices_{&a, &b}, rng_(seed), latency_ns_(latency_ns) {}

  void set_impairment(const Impairment& i) { impairment_ = i; }
  // Returns true to drop the frame; sees every frame with the index of the device sending it,
  // and may change it on the way (a trimming switch cuts it).
  std::function<bool(int from, std::vector<uint8_t>& frame)> filter;
  // Every frame that crossed, in delivery order, with the receiving device's index.
  std::vector<std::pair<int, std::vector<uint8_t>>> trace;

  uint64_t now() const { return now_ns_; }

  // Runs until `done()` is true or nothing is left to do, bounded by max_ns of virtual time
  // and a step budget. Returns whether done() became true.
  bool run_until(const std::function<bool()>& done, uint64_t max_ns = 60'000'000'000ULL);

 private:
  void collect(int from);

  Device* devices_[2];
  std::mt19937_64 rng_;
  uint64_t latency_ns_;
  uint64_t now_ns_ = 1'000'000;
  uint64_t seq_ = 0;
  Impairment impairment_;
  std::vector<InFlight> in_flight_;
};

}  // namespace mr::transport::testing
