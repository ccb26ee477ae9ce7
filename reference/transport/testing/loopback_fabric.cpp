#include "reference/transport/testing/loopback_fabric.h"

#include <algorithm>

namespace mr::transport::testing {

void LoopbackFabric::collect(int from) {
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& f : devices_[from]->take_outbox()) {
    if (filter && filter(from, f)) continue;
    if (u(rng_) < impairment_.drop) continue;
    uint64_t at = now_ns_ + latency_ns_;
    if (u(rng_) < impairment_.reorder) at += latency_ns_ * 3;  // overtaken by later frames
    if (u(rng_) < impairment_.corrupt && f.size() > 20) f[14 + rng_() % (f.size() - 14)] ^= 0x10;
    if (u(rng_) < impairment_.duplicate) in_flight_.push_back({at + 1, seq_++, 1 - from, f});
    in_flight_.push_back({at, seq_++, 1 - from, std::move(f)});
  }
}

bool LoopbackFabric::run_until(const std::function<bool()>& done, uint64_t max_ns) {
  const uint64_t end = now_ns_ + max_ns;
  for (int step = 0; step < 10'000'000; ++step) {
    for (int d = 0; d < 2; ++d) {
      devices_[d]->advance(now_ns_);
      collect(d);
    }
    if (done()) return true;
    // The next event: a delivery or a device timer.
    std::optional<uint64_t> next;
    for (const auto& f : in_flight_) next = std::min(next.value_or(f.at_ns), f.at_ns);
    for (auto* dev : devices_) {
      if (auto t = dev->next_deadline()) next = std::min(next.value_or(*t), std::max(*t, now_ns_));
    }
    if (!next || *next > end) return done();
    now_ns_ = std::max(now_ns_, *next);
    // Deliver everything due now, in (time, sequence) order.
    std::sort(in_flight_.begin(), in_flight_.end(), [](const InFlight& x, const InFlight& y) {
      return std::tie(x.at_ns, x.seq) < std::tie(y.at_ns, y.seq);
    });
    size_t n = 0;
    while (n < in_flight_.size() && in_flight_[n].at_ns <= now_ns_) ++n;
    std::vector<InFlight> due(std::make_move_iterator(in_flight_.begin()),
                              std::make_move_iterator(in_flight_.begin() + static_cast<long>(n)));
    in_flight_.erase(in_flight_.begin(), in_flight_.begin() + static_cast<long>(n));
    for (auto& f : due) {
      devices_[f.to]->receive(f.frame, now_ns_);
      trace.emplace_back(f.to, std::move(f.frame));
      collect(f.to);
    }
  }
  return done();
}

}  // namespace mr::transport::testing
