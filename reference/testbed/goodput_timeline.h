// File: goodput_timeline.h
//
// Goodput over time, read from the cumulative acknowledged bytes a scenario sampled at a fixed
// interval (ScenarioOutcome::timeline): the rate between two instants, and how long after a
// failure the rate came back to a level (issue 22's "recovery time in RTTs").
//
//   GoodputTimeline t(outcome.timeline, scenario.timeline_ns);
//   double before = t.rate_bps(fail_ns - 50'000, fail_ns);
//   uint64_t until = t.reached(total * 9 / 10).value_or(t.end_ns());
//   std::optional<uint64_t> back = t.recovered_at(fail_ns, until, 0.9 * before * 7 / 8);
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace mr::testbed {

class GoodputTimeline {
 public:
  // samples[k]: bytes acknowledged by k x bin_ns. A bin of 0 ns holds no samples.
  GoodputTimeline(std::span<const uint64_t> samples, uint64_t bin_ns)
      : samples_(bin_ns > 0 ? samples : std::span<const uint64_t>{}),
        bin_ns_(bin_ns > 0 ? bin_ns : 1) {}

  // Bits per second acknowledged between the samples at or before from_ns and to_ns; 0 when
  // the span holds no whole bin or lies past the samples.
  double rate_bps(uint64_t from_ns, uint64_t to_ns) const;

  // The first bin boundary t >= from_ns from which the rate over every `window` consecutive
  // bins up to until_ns stays at or above level_bps ("came back and stayed"; one bin's dip or
  // spike is noise); none if the last window before until_ns is below it.
  std::optional<uint64_t> recovered_at(uint64_t from_ns, uint64_t until_ns, double level_bps,
                                       uint32_t window = 4) const;

  // The first sample time at which `bytes` were acknowledged; none if never.
  std::optional<uint64_t> reached(uint64_t bytes) const;

  // The sample time after which the count no longer grows (for a count sampled like the bytes:
  // the last drop into a failed plane); none if it never grew.
  std::optional<uint64_t> last_growth() const;

  uint64_t end_ns() const { return samples_.empty() ? 0 : (samples_.size() - 1) * bin_ns_; }

 private:
  std::span<const uint64_t> samples_;
  uint64_t bin_ns_;
};

}  // namespace mr::testbed
