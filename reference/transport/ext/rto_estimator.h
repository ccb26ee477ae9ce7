// File: rto_estimator.h
//
// An Ext sender's retransmission timeout (spec section 21.2; RFC 6298): from RTT samples it
// keeps SRTT and RTTVAR (gains 1/8 and 1/4; the first sample sets SRTT = R, RTTVAR = R / 2),
// RTO = min(T_EXT_RTO_MAX, max(T_EXT_RTO_MIN, SRTT + 4 x RTTVAR)), and T_EXT_RTO_INIT before
// the first sample. Each consecutive timeout of one PSN doubles that PSN's RTO, up to
// T_EXT_RTO_MAX (MR-SA-14): backed_off() gives it for the n-th consecutive timeout.
//
//   RtoEstimator rto(RtoBounds{});
//   rto.sample(12'000);                     // ns
//   deadline = sent_at + rto.backed_off(timeouts_of_this_psn);
#pragma once

#include <cstdint>
#include <optional>

namespace mr::transport::ext {

// The PIXIT defaults of section 30, in ns.
struct RtoBounds {
  uint64_t initial_ns = 500'000;  // T_EXT_RTO_INIT
  uint64_t min_ns = 50'000;       // T_EXT_RTO_MIN
  uint64_t max_ns = 16'000'000;   // T_EXT_RTO_MAX
};

class RtoEstimator {
 public:
  explicit RtoEstimator(RtoBounds bounds) : bounds_(bounds) {}

  void sample(uint64_t rtt_ns);
  bool has_sample() const { return srtt_ns_.has_value(); }
  // SRTT, or T_EXT_RTO_MIN before the first sample (the early-loss rule's wait, section 21.2).
  uint64_t srtt_ns() const { return srtt_ns_.value_or(bounds_.min_ns); }
  uint64_t rttvar_ns() const { return rttvar_ns_; }
  // The smallest sample so far (0 before the first): a delivery sooner than this after a
  // retransmission was the original's (RACK's test).
  uint64_t min_rtt_ns() const { return min_rtt_ns_; }
  uint64_t rto_ns() const;
  // The RTO of a PSN after `timeouts` consecutive timeouts: rto_ns() x 2^timeouts, at most
  // T_EXT_RTO_MAX.
  uint64_t backed_off(unsigned timeouts) const;
  uint64_t max_ns() const { return bounds_.max_ns; }  // T_EXT_RTO_MAX

 private:
  RtoBounds bounds_;
  std::optional<uint64_t> srtt_ns_;
  uint64_t rttvar_ns_ = 0;
  uint64_t min_rtt_ns_ = 0;
};

}  // namespace mr::transport::ext
