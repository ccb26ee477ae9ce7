#include "reference/testbed/goodput_timeline.h"

namespace mr::testbed {

double GoodputTimeline::rate_bps(uint64_t from_ns, uint64_t to_ns) const {
  if (samples_.empty()) return 0;
  const uint64_t last = samples_.size() - 1;
  const uint64_t a = from_ns / bin_ns_;
  const uint64_t b = to_ns / bin_ns_ < last ? to_ns / bin_ns_ : last;
  if (b <= a) return 0;
  const uint64_t bytes = samples_[b] >= samples_[a] ? samples_[b] - samples_[a] : 0;
  return static_cast<double>(bytes) * 8e9 / static_cast<double>((b - a) * bin_ns_);
}

std::optional<uint64_t> GoodputTimeline::recovered_at(uint64_t from_ns, uint64_t until_ns,
                                                      double level_bps, uint32_t window) const {
  if (window == 0) window = 1;
  const uint64_t span = uint64_t{window} * bin_ns_;
  uint64_t recovered = (from_ns + bin_ns_ - 1) / bin_ns_ * bin_ns_;
  if (until_ns > end_ns()) until_ns = end_ns();
  if (until_ns < recovered + span) return std::nullopt;
  for (uint64_t start = recovered; start + span <= until_ns; start += bin_ns_) {
    if (rate_bps(start, start + span) < level_bps) recovered = start + bin_ns_;
  }
  if (recovered + span > until_ns) return std::nullopt;
  return recovered;
}

std::optional<uint64_t> GoodputTimeline::reached(uint64_t bytes) const {
  for (size_t k = 0; k < samples_.size(); ++k)
    if (samples_[k] >= bytes) return k * bin_ns_;
  return std::nullopt;
}

std::optional<uint64_t> GoodputTimeline::last_growth() const {
  for (size_t k = samples_.size(); k > 1; --k)
    if (samples_[k - 1] > samples_[k - 2]) return (k - 1) * bin_ns_;
  return std::nullopt;
}

}  // namespace mr::testbed
