// File: congestion_window.cpp
#include "reference/transport/ext/congestion_window.h"

#include <algorithm>
#include <cmath>

namespace mr::transport::ext {
namespace {

using u128 = unsigned __int128;

}  // namespace

uint64_t rtt_sample(uint64_t now_ns, uint32_t ts_echo, uint16_t service_time) {
  return static_cast<uint32_t>(static_cast<uint32_t>(now_ns) - ts_echo -
                               64U * uint32_t{service_time});
}

CongestionWindow::CongestionWindow(CongestionParameters parameters, uint64_t start_ns)
    : p_(parameters),
      cwnd_(parameters.cwnd_init),
      base_rtt_ns_(parameters.base_rtt_ns),
      qa_end_ns_(start_ns + parameters.base_rtt_ns + parameters.target_ns),
      tokens_(static_cast<double>(parameters.pace_burst)),
      tokens_at_ns_(start_ns) {
  clamp();
}

void CongestionWindow::clamp() { cwnd_ = std::min(p_.cwnd_max, std::max(p_.cwnd_min, cwnd_)); }

void CongestionWindow::sample(uint64_t rtt_ns) {
  if (!p_.base_rtt_starts_at_parameter && !sampled_) base_rtt_ns_ = rtt_ns;
  sampled_ = true;
  if (p_.samples_base_rtt) base_rtt_ns_ = std::min(base_rtt_ns_, rtt_ns);
  delay_ns_ = rtt_ns > base_rtt_ns_ ? rtt_ns - base_rtt_ns_ : 0;
}

void CongestionWindow::on_rtt(uint64_t rtt_ns) { sample(rtt_ns); }

// At most once per period: jump to what the period achieved if it saw a loss or a long
// delay and achieved less than the gate.
bool CongestionWindow::quick_adapt(uint64_t now_ns, uint64_t bytes_in_flight) {
  if (now_ns < qa_end_ns_) return false;
  bool done = false;
  // achieved < cwnd_max x gate, in integers: achieved x den < cwnd_max x num.
  if (qa_trigger_ && u128{achieved_} * p_.qa_gate.den < u128{p_.cwnd_max} * p_.qa_gate.num) {
    cwnd_ = std::max(p_.cwnd_min, achieved_);
    qa_ignore_ = bytes_in_flight;
    done = true;
  }
  achieved_ = 0;
  qa_trigger_ = false;
  qa_end_ns_ = now_ns + base_rtt_ns_ + p_.target_ns;
  return done;
}

WindowStep CongestionWindow::on_ack(const AckSignal& ack, uint64_t now_ns,
                                    uint64_t bytes_in_flight) {
  if (ack.rtt_ns) sample(*ack.rtt_ns);
  if (delay_ns_ > p_.qa_delay_ns) qa_trigger_ = true;
  achieved_ += ack.acked_bytes;
  if (quick_adapt(now_ns, bytes_in_flight)) return WindowStep::kQuickAdapt;
  if (qa_ignore_ > 0 && p_.quick_adapt_ignores_ecn) {
    qa_ignore_ = qa_ignore_ > ack.acked_bytes ? qa_ignore_ - ack.acked_bytes : 0;
    if (ack.ecn) return WindowStep::kIgnoredAfterQuickAdapt;
  }
  const uint64_t t = p_.target_ns;
  const uint64_t d = delay_ns_;
  WindowStep step = WindowStep::kNoChange;
  if (!ack.ecn && d < t) {
    // cwnd + PROP_INC x A x (T - delay) / (T x cwnd), floored.
    const u128 num = u128{p_.prop_inc} * ack.acked_bytes * (t - d);
    cwnd_ += static_cast<uint64_t>(num / (u128{t} * cwnd_));
    step = WindowStep::kProportionalIncrease;
  } else if (!ack.ecn) {
    cwnd_ += static_cast<uint64_t>(u128{p_.fair_inc} * ack.acked_bytes / cwnd_);
    step = WindowStep::kFairIncrease;
  } else if (d >= t || !p_.ecn_low_delay_holds) {
    if (!t_md_ns_ || now_ns - *t_md_ns_ >= base_rtt_ns_ || !p_.gates_decrease) {
      // factor = max(FLOOR, 1 - GAIN x (d - T) / d) as a fraction f_num / f_den; below T
      // (only the ext-ecn-low-delay-decreases mutant gets here) the FLOOR itself.
      const u128 g_den = u128{p_.md_gain.den} * d;
      const u128 cut = d >= t ? u128{p_.md_gain.num} * (d - t) : g_den;
      u128 f_num = cut >= g_den ? 0 : g_den - cut;
      u128 f_den = g_den;
      if (f_den == 0 || f_num * p_.md_floor.den < u128{p_.md_floor.num} * f_den) {
        f_num = p_.md_floor.num;
        f_den = p_.md_floor.den;
      }
      cwnd_ = static_cast<uint64_t>(u128{cwnd_} * f_num / f_den);
      t_md_ns_ = now_ns;
      step = WindowStep::kDecrease;
    } else {
      step = WindowStep::kDecreaseGated;
    }
  }
  clamp();
  return step;
}

WindowStep CongestionWindow::on_loss(uint64_t size, std::optional<uint64_t> rtt_ns, uint64_t now_ns,
                                     uint64_t bytes_in_flight) {
  if (rtt_ns) sample(*rtt_ns);
  if (p_.loss_takes_packet_off) {
    cwnd_ = cwnd_ > size ? cwnd_ - size : 0;
  } else {
    cwnd_ = static_cast<uint64_t>(u128{cwnd_} * p_.md_floor.num / p_.md_floor.den);
  }
  clamp();
  qa_trigger_ = true;
  return quick_adapt(now_ns, bytes_in_flight) ? WindowStep::kQuickAdapt : WindowStep::kLoss;
}

bool CongestionWindow::may_send(uint64_t bytes_in_flight, uint64_t payload) const {
  return bytes_in_flight == 0 || bytes_in_flight + payload <= cwnd_;
}

bool CongestionWindow::paced(uint64_t payload, uint64_t now_ns) {
  const double rate =
      static_cast<double>(cwnd_) / static_cast<double>(std::max<uint64_t>(1, base_rtt_ns_));
  if (now_ns > tokens_at_ns_) {
    tokens_ = std::min(static_cast<double>(p_.pace_burst),
                       tokens_ + rate * static_cast<double>(now_ns - tokens_at_ns_));
    tokens_at_ns_ = now_ns;
  }
  const double need = static_cast<double>(std::min(payload, p_.pace_burst));
  if (tokens_ >= need) return true;
  pacer_wait_ns_ = now_ns + static_cast<uint64_t>(std::ceil((need - tokens_) / rate));
  return false;
}

void CongestionWindow::take(uint64_t payload) { tokens_ -= static_cast<double>(payload); }

}  // namespace mr::transport::ext
