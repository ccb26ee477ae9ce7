// File: rto_estimator.cpp
#include "reference/transport/ext/rto_estimator.h"

#include <algorithm>

namespace mr::transport::ext {

void RtoEstimator::sample(uint64_t rtt_ns) {
  min_rtt_ns_ = srtt_ns_ ? std::min(min_rtt_ns_, rtt_ns) : rtt_ns;
  if (!srtt_ns_) {
    srtt_ns_ = rtt_ns;
    rttvar_ns_ = rtt_ns / 2;
    return;
  }
  // RFC 6298 2.3: RTTVAR first, from the SRTT before this sample.
  const uint64_t srtt = *srtt_ns_;
  const uint64_t deviation = srtt > rtt_ns ? srtt - rtt_ns : rtt_ns - srtt;
  rttvar_ns_ = (3 * rttvar_ns_ + deviation) / 4;
  srtt_ns_ = (7 * srtt + rtt_ns) / 8;
}

uint64_t RtoEstimator::rto_ns() const {
  if (!srtt_ns_) return std::min(bounds_.max_ns, bounds_.initial_ns);
  return std::min(bounds_.max_ns, std::max(bounds_.min_ns, *srtt_ns_ + 4 * rttvar_ns_));
}

uint64_t RtoEstimator::backed_off(unsigned timeouts) const {
  uint64_t rto = rto_ns();
  for (unsigned i = 0; i < timeouts && rto < bounds_.max_ns; ++i) rto *= 2;
  return std::min(rto, bounds_.max_ns);
}

}  // namespace mr::transport::ext
