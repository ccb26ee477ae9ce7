// The fabric's own cost (issue 22): simulated frames per second of wall time on 8
// leaf-spine planes of 100 Gbit/s links, for 16, 128 and 1,024 endpoints, every endpoint
// sending 4 KiB frames (4,094 bytes: RoCEv2 frames are 2 mod 4 long) at 90% of line rate on every
// plane, each frame with its own UDP source port (oblivious spraying), to a fixed permutation
// partner or round robin to all others. One iteration simulates one microsecond: inject what each
// port's line rate allows, run the events, drain every port. Also counted: events per wall second,
// and heap allocations per delivered frame once the fabric has warmed up (target: 0).
//
// bazel run -c opt //reference/io/fabric:fabric_benchmark
#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

#include "reference/io/clock.h"
#include "reference/io/fabric/fabric.h"
#include "reference/io/fabric/fabric_test_frames.h"
#include "reference/io/fabric/seeded_random.h"
#include "reference/io/heap_allocation_counter.h"

namespace mr::io::fabric {
namespace {

constexpr uint32_t kPlanes = 8;
constexpr uint32_t kFrameBytes = 4096;
constexpr uint64_t kRateBps = 100'000'000'000;
constexpr uint64_t kStepNs = 1'000;
constexpr uint64_t kWarmupSteps = 100;  // simulated microseconds before measuring
// Offered load per port. At exactly line rate, per-packet spraying makes every uplink
// queue a random walk that grows without bound, and the run never reaches a steady state.
constexpr double kLoad = 0.9;

enum class Traffic { kPermutation, kAllToAll };

// Non-blocking leaf-spine: as many spines as hosts per leaf.
FabricConfig leaf_spine(uint32_t endpoints) {
  const uint32_t h = endpoints <= 16 ? 4 : endpoints <= 128 ? 16 : 32;
  FabricConfig c{.endpoints = endpoints, .seed = 1};
  const LinkParams link{.rate_bps = kRateBps, .propagation_ns = 500, .queue_bytes = 256 * 1024};
  c.planes.assign(kPlanes, PlaneTopology{.leaves = endpoints / h,
                                         .spines = h,
                                         .hosts_per_leaf = h,
                                         .host_link = link,
                                         .spine_link = link});
  c.ecn = {.enabled = true};
  return c;
}

class Workload {
 public:
  Workload(const FabricConfig& config, Traffic traffic) : config_(config), traffic_(traffic) {
    const uint32_t n = config.endpoints;
    partner_.resize(n);
    std::iota(partner_.begin(), partner_.end(), 0);
    SeededRandom random(7);
    // Sattolo's shuffle: a single cycle, so nobody is its own partner.
    for (uint32_t i = n - 1; i > 0; --i) std::swap(partner_[i], partner_[random.next() % i]);
    for (uint32_t p = 0; p < kPlanes; ++p) {
      for (uint32_t e = 0; e < n; ++e) {
        templates_.push_back(test_frame(
            config, {.plane = p, .src = e, .dst = partner_[e], .frame_bytes = kFrameBytes}));
      }
    }
    sent_.assign(templates_.size(), 0);
  }

  // Offers each port the frames its line rate allows by `now_ns`; returns how many.
  uint64_t inject(Fabric& fabric, uint64_t now_ns) {
    const auto due = static_cast<uint64_t>(static_cast<double>(now_ns) * kLoad * 1e-9 *
                                           static_cast<double>(kRateBps) / (kFrameBytes * 8.0));
    uint64_t offered = 0;
    const uint32_t n = config_.endpoints;
    for (uint32_t p = 0; p < kPlanes; ++p) {
      for (uint32_t e = 0; e < n; ++e) {
        const size_t slot = size_t{p} * n + e;
        for (uint64_t k = sent_[slot]; k < due; ++k) {
          Frame& f = templates_[slot];
          const uint32_t dst = traffic_ == Traffic::kPermutation
                                   ? partner_[e]
                                   : (e + 1 + static_cast<uint32_t>(k % (n - 1))) % n;
          set_destination(f, p, dst);
          const auto sport = static_cast<uint16_t>(0xc000 | (k & 0x3fff));
          f.bytes[34] = static_cast<uint8_t>(sport >> 8);
          f.bytes[35] = static_cast<uint8_t>(sport);
          // One frame per send: the template is patched again for the next.
          offered += fabric.port(p, e).send_burst(std::span<const Frame>(&f, 1));
        }
        sent_[slot] = due;
      }
    }
    return offered;
  }

 private:
  void set_destination(Frame& f, uint32_t plane, uint32_t dst) const {
    const wire::Ipv4Address a = config_.addressing.ipv4(plane, dst);
    for (size_t i = 0; i < 4; ++i) f.bytes[30 + i] = a.bytes[i];
  }

  const FabricConfig& config_;
  Traffic traffic_;
  std::vector<uint32_t> partner_;
  std::vector<Frame> templates_;
  std::vector<uint64_t> sent_;
};

uint64_t drain(Fabric& fabric, const FabricConfig& config, std::vector<Frame>& in) {
  uint64_t n = 0;
  for (uint32_t p = 0; p < kPlanes; ++p) {
    for (uint32_t e = 0; e < config.endpoints; ++e) n += fabric.port(p, e).receive_burst(in, 0);
  }
  return n;
}

void BM_Fabric(benchmark::State& state, Traffic traffic) {
  const auto endpoints = static_cast<uint32_t>(state.range(0));
  const FabricConfig config = leaf_spine(endpoints);
  VirtualClock clock;
  auto fabric = Fabric::create(clock, config).value();
  Workload workload(config, traffic);
  std::vector<Frame> in(256);
  uint64_t now = 0;
  auto step = [&] {
    now += kStepNs;
    workload.inject(*fabric, now);
    clock.set(now);
    fabric->run_until(now);
    return drain(*fabric, config, in);
  };
  for (uint64_t i = 0; i < kWarmupSteps; ++i) step();
  uint64_t delivered = 0;
  const uint64_t events_before = fabric->events_run();
  const uint64_t allocations_before = process_heap_allocations();
  for (auto _ : state) delivered += step();
  const uint64_t allocations = process_heap_allocations() - allocations_before;
  const uint64_t events = fabric->events_run() - events_before;
  state.counters["frames/s"] =
      benchmark::Counter(static_cast<double>(delivered), benchmark::Counter::kIsRate);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["allocs/frame"] =
      static_cast<double>(allocations) / static_cast<double>(std::max<uint64_t>(1, delivered));
  state.counters["sim_us"] = static_cast<double>(now) / 1000.0;
  LinkCounters drops;
  for (uint32_t p = 0; p < kPlanes; ++p) drops += fabric->plane_counters(p);
  state.counters["dropped"] = static_cast<double>(drops.dropped());
  state.counters["ecn_marked"] = static_cast<double>(drops.ecn_marked);
}

BENCHMARK_CAPTURE(BM_Fabric, permutation, Traffic::kPermutation)
    ->Arg(16)
    ->Arg(128)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Fabric, all_to_all, Traffic::kAllToAll)
    ->Arg(16)
    ->Arg(128)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mr::io::fabric

BENCHMARK_MAIN();
