#include "reference/transport/dcqcn_reaction_point.h"

#include <algorithm>
#include <cmath>

namespace mr::transport {
namespace {

// A catch-up applies at most this many rate-timer steps: from R_DCQCN_MIN_RATE, additive
// increase alone reaches 100 Gb/s in 20,000; the loop also stops once nothing can change.
constexpr uint64_t kMaxCatchUpSteps = 1 << 20;
// The pacer's gap is finite whatever the rate: at least 1 bit/s, at most a day per packet.
constexpr double kFloorBps = 1;
constexpr double kMaxGapNs = 86'400e9;

}  // namespace

DcqcnReactionPoint::DcqcnReactionPoint(const DcqcnParameters& params)
    : params_(params), rc_(params.line_rate_bps), rt_(params.line_rate_bps) {}

void DcqcnReactionPoint::on_cnp(uint64_t now_ns, const CongestionDecisions& decide) {
  if (!decide.reaction_point_acts_on_cnp) return;
  const bool keep_minimum = decide.reaction_point_keeps_minimum;
  if (!decide.reaction_point_acts_at_once) {
    if (!delayed_cut_ns_) {
      delayed_cut_ns_ = now_ns + params_.late_reaction_ns;
      delayed_cut_keeps_minimum_ = keep_minimum;
    }
    return;
  }
  catch_up(now_ns);
  cut(now_ns, keep_minimum);
}

// Section 13.3, "CNP received for the QP".
void DcqcnReactionPoint::cut(uint64_t now_ns, bool keep_minimum) {
  rt_ = rc_;
  rc_ = rc_ * (1 - alpha_ / 2);
  if (keep_minimum) rc_ = std::max(rc_, params_.min_rate_bps);  // MR-CC-12
  rc_ = std::max(rc_, kFloorBps);  // even a broken or zero minimum: no division by zero
  alpha_ = (1 - params_.g) * alpha_ + params_.g;
  timer_events_ = 0;
  byte_events_ = 0;
  bytes_since_event_ = 0;
  alpha_timer_start_ns_ = now_ns;
  rate_timer_start_ns_ = now_ns;
}

// Section 13.3, "increase step": fast recovery, hyper increase or additive increase.
void DcqcnReactionPoint::increase() {
  const uint64_t f = params_.fast_recovery_steps;
  const uint64_t most = std::max(timer_events_, byte_events_);
  const uint64_t least = std::min(timer_events_, byte_events_);
  if (most >= f && least > f) {
    rt_ += static_cast<double>(least - f) * params_.hyper_increase_bps;
  } else if (most >= f) {
    rt_ += params_.additive_increase_bps;
  }
  rt_ = std::min(rt_, params_.line_rate_bps);
  rc_ = std::min((rt_ + rc_) / 2, params_.line_rate_bps);
  // Halving the distance never quite arrives: within a bit per second is the line rate.
  if (params_.line_rate_bps - rc_ < 1) rc_ = params_.line_rate_bps;
}

void DcqcnReactionPoint::catch_up(uint64_t now_ns) {
  if (delayed_cut_ns_ && now_ns >= *delayed_cut_ns_) {
    const uint64_t at = *delayed_cut_ns_;
    delayed_cut_ns_.reset();
    catch_up(at);
    cut(at, delayed_cut_keeps_minimum_);
  }
  if (alpha_timer_start_ns_ && now_ns > *alpha_timer_start_ns_) {
    const uint64_t periods = (now_ns - *alpha_timer_start_ns_) / params_.alpha_timer_ns;
    alpha_ *= std::pow(1 - params_.g, static_cast<double>(periods));
    *alpha_timer_start_ns_ += periods * params_.alpha_timer_ns;
  }
  if (rate_timer_start_ns_ && now_ns > *rate_timer_start_ns_) {
    const uint64_t periods = (now_ns - *rate_timer_start_ns_) / params_.rate_timer_ns;
    for (uint64_t i = 0; i < std::min(periods, kMaxCatchUpSteps); ++i) {
      if (rc_ == params_.line_rate_bps && rt_ == params_.line_rate_bps) break;
      ++timer_events_;
      increase();
    }
    *rate_timer_start_ns_ += periods * params_.rate_timer_ns;
  }
}

void DcqcnReactionPoint::on_sent(uint64_t now_ns, size_t frame_bytes) {
  catch_up(now_ns);
  if (rate_timer_start_ns_) {
    bytes_since_event_ += frame_bytes;
    // Bounded: one send adds at most one frame, far less than any sane byte counter.
    for (int i = 0; i < 64 && bytes_since_event_ >= params_.byte_counter; ++i) {
      bytes_since_event_ -= params_.byte_counter;
      ++byte_events_;
      increase();
    }
  }
  if (!paced()) {
    next_send_ns_ = now_ns;
    return;
  }
  const double gap_ns = std::min(static_cast<double>(frame_bytes) * 8e9 / rc_, kMaxGapNs);
  next_send_ns_ = std::max(next_send_ns_, now_ns) + static_cast<uint64_t>(std::ceil(gap_ns));
}

}  // namespace mr::transport
