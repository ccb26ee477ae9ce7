// File: dcqcn_reaction_point.h
//
// The DCQCN reaction point of one QP (spec section 13.3, MR-CC-07, MR-CC-12, MR-CC-14): the
// current rate RC, the target rate RT, alpha, the timer and byte event counts, and a pacer
// that spaces the QP's packets so that it sends no faster than RC.
//
// A QP gets one at its first CNP; before that it sends unpaced (the link is its line rate),
// so a device that never sees a CNP behaves exactly as one without a reaction point. The
// timers are evaluated lazily, in order, whenever the QP sends or receives a CNP: the rate
// increase steps do not depend on alpha, and alpha matters only at the next CNP, so catching
// up at those moments is exact.
//
// Usage:
//   DcqcnReactionPoint rp(params);
//   rp.on_cnp(now, decide.congestion);         // RT = RC; RC = max(min, RC (1 - alpha / 2))
//   rp.catch_up(now); if (now >= rp.next_send_ns()) { send; rp.on_sent(now, frame_bytes); }
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "reference/transport/congestion_decisions.h"

namespace mr::transport {

// The section 13.3 parameters, as the PIXIT defaults name them; rates in bit/s.
struct DcqcnParameters {
  double line_rate_bps = 100e9;
  double min_rate_bps = 10e6;           // R_DCQCN_MIN_RATE
  double g = 0.00390625;                // R_DCQCN_G
  uint64_t alpha_timer_ns = 55'000;     // T_DCQCN_ALPHA_TIMER
  uint64_t rate_timer_ns = 300'000;     // T_DCQCN_RATE_TIMER
  uint64_t byte_counter = 10'485'760;   // B_DCQCN_BYTE_COUNTER
  uint32_t fast_recovery_steps = 5;     // N_DCQCN_FAST_RECOVERY
  double additive_increase_bps = 5e6;   // R_DCQCN_AI_RATE
  double hyper_increase_bps = 50e6;     // R_DCQCN_HAI_RATE
  uint64_t late_reaction_ns = 200'000;  // the rp-reacts-late mutant: 2 x T_RP_REACT_MAX
};

class DcqcnReactionPoint {
 public:
  explicit DcqcnReactionPoint(const DcqcnParameters& params);

  // A CNP for the QP arrived at `now_ns`.
  void on_cnp(uint64_t now_ns, const CongestionDecisions& decide);
  // Applies the timer events due by `now_ns` (and a delayed cut, under a mutant).
  void catch_up(uint64_t now_ns);
  // A packet of `frame_bytes` (Ethernet header to ICRC) left at `now_ns`.
  void on_sent(uint64_t now_ns, size_t frame_bytes);

  // The earliest time the QP's next packet may leave.
  uint64_t next_send_ns() const { return next_send_ns_; }
  double rate_bps() const { return rc_; }
  double target_rate_bps() const { return rt_; }
  double alpha() const { return alpha_; }
  bool paced() const { return rc_ < params_.line_rate_bps; }

 private:
  void cut(uint64_t now_ns, bool keep_minimum);
  void increase();

  DcqcnParameters params_;
  double rc_;
  double rt_;
  double alpha_ = 1;
  uint64_t timer_events_ = 0;  // TC
  uint64_t byte_events_ = 0;   // BC
  uint64_t bytes_since_event_ = 0;
  std::optional<uint64_t> alpha_timer_start_ns_;  // the timers run from the first CNP on
  std::optional<uint64_t> rate_timer_start_ns_;
  std::optional<uint64_t> delayed_cut_ns_;  // rp-reacts-late: when the held-back cut applies
  bool delayed_cut_keeps_minimum_ = true;
  uint64_t next_send_ns_ = 0;
};

}  // namespace mr::transport
