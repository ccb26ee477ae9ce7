// File: congestion_window.h
//
// An Ext sender's congestion window (spec sections 26.1 to 26.3): delay against a target
// queueing delay and ECN decide the step on every ACK (proportional increase, fair increase,
// no change, multiplicative decrease at most once per base_rtt), a trim NAK or an RTO takes
// the packet's size off and arms a quick adapt, which at the end of its period jumps the
// window to the bytes achieved when a loss or a long delay happened and little got through.
// Arithmetic is exact as the spec asks: times in ns, ratios as fractions, 128-bit products,
// the floor taken on every assignment to cwnd, so the window replays EX-W1 to the byte. A
// token-bucket pacer spreads request packets at cwnd / base_rtt.
//
//   CongestionWindow cc(CongestionParameters{}, /*start_ns=*/0);
//   cc.on_ack({.acked_bytes = 32768, .ecn = false, .rtt_ns = 11'000}, now, bytes_in_flight);
//   if (cc.may_send(bytes_in_flight, payload)) ...
#pragma once

#include <cstdint>
#include <optional>

namespace mr::transport::ext {

// A ratio of section 30 as an exact fraction (0.8 = 4/5).
struct Ratio {
  uint64_t num = 0;
  uint64_t den = 1;
};

// The PIXIT defaults of section 30; bytes and ns.
struct CongestionParameters {
  uint64_t cwnd_init = 125'000;   // B_CWND_INIT
  uint64_t cwnd_min = 4'096;      // B_CWND_MIN
  uint64_t cwnd_max = 187'500;    // B_CWND_MAX
  uint64_t base_rtt_ns = 10'000;  // T_SC_BASE_RTT
  uint64_t target_ns = 8'000;     // T_SC_TARGET_QDELAY
  uint64_t qa_delay_ns = 32'000;  // T_SC_QA_DELAY
  uint64_t prop_inc = 16'384;     // B_SC_PROP_INC
  uint64_t fair_inc = 20'480;     // B_SC_FAIR_INC
  Ratio md_gain{4, 5};            // R_SC_MD_GAIN
  Ratio md_floor{1, 2};           // R_SC_MD_FLOOR
  Ratio qa_gate{1, 8};            // R_SC_QA_GATE
  uint64_t pace_burst = 16'384;   // B_SC_PACE_BURST
  // Section 26.2's rules that only mutants switch off: ECN with a low delay leaves cwnd
  // alone (MR-SC-14), a decrease waits base_rtt after the last (MR-SC-17), base_rtt follows
  // the smallest sample (MR-SC-23), a loss takes its packet off cwnd (MR-SC-18, not the
  // floor's decrease), and ECN marks are ignored after a quick adapt (MR-SC-19).
  bool ecn_low_delay_holds = true;
  bool gates_decrease = true;
  bool samples_base_rtt = true;
  bool base_rtt_starts_at_parameter = true;  // false: the first sample replaces it
  bool loss_takes_packet_off = true;
  bool quick_adapt_ignores_ecn = true;
};

// What one Ext ACK (or READ response packet) tells the window.
struct AckSignal {
  uint64_t acked_bytes = 0;  // A: payload reported received for the first time
  bool ecn = false;          // ECE, TRM (remarked, not cut) or CE count > 0
  std::optional<uint64_t> rtt_ns;
};

// The step an ACK took, for traces and tests.
enum class WindowStep : uint8_t {
  kProportionalIncrease,
  kFairIncrease,
  kNoChange,       // ECN with a low delay: the path selection reacts instead
  kDecrease,       // multiplicative decrease
  kDecreaseGated,  // would decrease, but within base_rtt of the last decrease
  kQuickAdapt,
  kIgnoredAfterQuickAdapt,
  kLoss,
};

// rtt = now - TS echo - 64 ns x service time, in 32-bit nanosecond arithmetic (section 26.1).
uint64_t rtt_sample(uint64_t now_ns, uint32_t ts_echo, uint16_t service_time);

class CongestionWindow {
 public:
  CongestionWindow(CongestionParameters parameters, uint64_t start_ns);

  // Every Ext ACK; `bytes_in_flight` as section 26.1 counts them (for a quick adapt).
  WindowStep on_ack(const AckSignal& ack, uint64_t now_ns, uint64_t bytes_in_flight);
  // NAK 0x65 or 0x66 for a packet of `size` payload bytes, a trimmed READ response, or the
  // packet's RTO.
  WindowStep on_loss(uint64_t size, std::optional<uint64_t> rtt_ns, uint64_t now_ns,
                     uint64_t bytes_in_flight);
  // Other packets (NAK 0x67 to 0x6B, RNR, probe replies): the delay only.
  void on_rtt(uint64_t rtt_ns);

  // Section 26.2's sending rule: in flight + payload <= cwnd, or nothing in flight.
  bool may_send(uint64_t bytes_in_flight, uint64_t payload) const;
  // The pacer (26.3): whether the bucket holds `payload` bytes now (a payload larger than the
  // bucket needs it full); take() removes them. A refusal is remembered: pacer_wait_ns() is
  // then when the bucket will hold them, until forget_pacer_wait() (a packet sent after it
  // does not make the refused one's wait moot).
  bool paced(uint64_t payload, uint64_t now_ns);
  void take(uint64_t payload);
  std::optional<uint64_t> pacer_wait_ns() const { return pacer_wait_ns_; }
  void forget_pacer_wait() { pacer_wait_ns_.reset(); }

  uint64_t cwnd() const { return cwnd_; }
  uint64_t base_rtt_ns() const { return base_rtt_ns_; }
  uint64_t delay_ns() const { return delay_ns_; }

 private:
  void sample(uint64_t rtt_ns);
  bool quick_adapt(uint64_t now_ns, uint64_t bytes_in_flight);
  void clamp();

  CongestionParameters p_;
  uint64_t cwnd_;
  uint64_t base_rtt_ns_;
  bool sampled_ = false;  // an RTT sample has been taken
  uint64_t delay_ns_ = 0;
  std::optional<uint64_t> t_md_ns_;
  uint64_t qa_end_ns_;
  uint64_t achieved_ = 0;
  bool qa_trigger_ = false;
  uint64_t qa_ignore_ = 0;
  double tokens_;  // the pacer's bucket, bytes (pacing needs no exactness)
  uint64_t tokens_at_ns_;
  std::optional<uint64_t> pacer_wait_ns_;
};

}  // namespace mr::transport::ext
