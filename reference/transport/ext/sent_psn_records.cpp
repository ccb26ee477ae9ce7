// File: sent_psn_records.cpp
#include "reference/transport/ext/sent_psn_records.h"

#include <algorithm>
#include <array>
#include <bit>

#include "reference/wire/psn.h"

namespace mr::transport::ext {
namespace {

using wire::psn_add;
using wire::psn_diff;

constexpr size_t kInitialRing = 64;
constexpr uint32_t kPsnsPerMpr = 128;

}  // namespace

SentPsnRecords::SentPsnRecords(uint32_t first_psn, ExtSenderParameters parameters)
    : parameters_(parameters),
      cumulative_(psn_add(first_psn, -1)),
      next_psn_(first_psn),
      ring_(kInitialRing) {}

bool SentPsnRecords::may_send_new(uint32_t psn) const {
  const uint32_t d = psn_add(psn, -static_cast<int64_t>(cumulative_) - 1);
  return d < kPsnsPerMpr * (parameters_.follows_advertised_mpr ? mpr_ : 255U);
}

bool SentPsnRecords::sent(uint32_t psn) const {
  return psn_diff(psn, cumulative_) > 0 && psn_diff(psn, next_psn_) < 0;
}

SentPsnRecords::Record& SentPsnRecords::at(uint32_t psn) { return ring_[psn & (ring_.size() - 1)]; }

const SentPsnRecords::Record& SentPsnRecords::at(uint32_t psn) const {
  return ring_[psn & (ring_.size() - 1)];
}

bool SentPsnRecords::outstanding(uint32_t psn) const { return sent(psn) && !at(psn).sacked; }

std::optional<uint16_t> SentPsnRecords::last_ev(uint32_t psn) const {
  if (!sent(psn)) return std::nullopt;
  return at(psn).ev;
}

uint16_t SentPsnRecords::transmissions(uint32_t psn) const {
  return sent(psn) ? at(psn).transmissions : 0;
}

size_t SentPsnRecords::outstanding_count() const {
  size_t n = 0;
  for (uint32_t p = psn_add(cumulative_, 1); p != next_psn_; p = psn_add(p, 1)) n += !at(p).sacked;
  return n;
}

// Doubles the ring, keeping each in-flight PSN's record at its new index.
void SentPsnRecords::grow() {
  std::vector<Record> larger(ring_.size() * 2);
  for (uint32_t p = psn_add(cumulative_, 1); p != next_psn_; p = psn_add(p, 1))
    larger[p & (larger.size() - 1)] = at(p);
  ring_ = std::move(larger);
}

void SentPsnRecords::on_sent(uint32_t psn, uint64_t now_ns, uint16_t ev, uint8_t plane,
                             bool probe) {
  if (psn == next_psn_) {
    if (static_cast<size_t>(psn_diff(next_psn_, cumulative_)) >= ring_.size()) grow();
    at(psn) = Record{};
    next_psn_ = psn_add(next_psn_, 1);
  } else if (!sent(psn)) {
    return;  // neither new nor in flight: nothing to record
  }
  last_activity_ns_ = now_ns;  // a new PSN or a probe restarts the probe timeout
  Record& r = at(psn);
  untrim(r);
  // A report older than this transmission says nothing of it.
  r.reported_missing = false;
  r.lost_on_its_ev = false;
  r.last_sent_ns = now_ns;
  if (!probe || !parameters_.probe_keeps_rto) r.last_timed_ns = now_ns;
  r.send_order = ++send_order_;
  r.ev = ev;
  r.plane = plane;
  deliveries(ev).last_sent_ns = now_ns;
  ++r.transmissions;
}

void SentPsnRecords::advance_cumulative(uint32_t to) {
  cumulative_ = to;
  if (newest_sacked_ && psn_diff(*newest_sacked_, cumulative_) <= 0) newest_sacked_.reset();
  // The cumulative PSN moved: every PSN's run of consecutive timeouts ends (MR-SA-11).
  for (uint32_t p = psn_add(cumulative_, 1); p != next_psn_; p = psn_add(p, 1))
    at(p).consecutive_timeouts = 0;
}

// Marks the PSNs the bitmap reports; bits at or before C and for PSNs never sent say nothing.
uint32_t SentPsnRecords::sack_bitmap(const ExtAckReport& ack, uint64_t now_ns, uint64_t min_rtt_ns,
                                     AckOutcome& out) {
  const auto offset = static_cast<int16_t>(ack.sack_offset);
  if (offset % 8 != 0) {
    out.bitmap_ignored = true;
    return 0;
  }
  const uint32_t base = psn_add(ack.sack_ref, parameters_.reads_sack_offset ? offset : 0);
  const int highest = ack.bitmap == 0 ? -1 : 63 - std::countl_zero(ack.bitmap);
  // From the highest PSN down, per EV the newest transmission this report shows received: a
  // hole below it on its own EV is lost (Record::lost_on_its_ev). A retransmitted PSN
  // reported sooner than the minimum RTT after its retransmission was delivered by an earlier
  // copy, which says nothing about order (RACK).
  struct EvNewest {
    uint16_t ev;
    uint32_t send_order;
  };
  std::array<EvNewest, 64> newest{};
  size_t evs = 0;
  uint32_t newly = 0;
  for (int i = highest; i >= 0; --i) {
    const uint32_t p = psn_add(base, i);
    if (!sent(p)) continue;
    Record& r = at(p);
    auto seen = std::find_if(newest.begin(), newest.begin() + evs,
                             [&](const EvNewest& e) { return e.ev == r.ev; });
    if (((ack.bitmap >> i) & 1) == 0) {
      if (r.sacked) continue;
      r.reported_missing = true;  // a hole below a PSN this bitmap reports received
      if (seen != newest.begin() + evs && static_cast<int32_t>(seen->send_order - r.send_order) > 0)
        r.lost_on_its_ev = true;
      continue;
    }
    note_order_delivered(r, now_ns, min_rtt_ns);
    if (!(r.transmissions > 1 && now_ns - r.last_sent_ns < min_rtt_ns)) {
      if (seen == newest.begin() + evs) {
        newest[evs++] = {r.ev, r.send_order};
      } else if (static_cast<int32_t>(r.send_order - seen->send_order) > 0) {
        seen->send_order = r.send_order;
      }
    }
    if (r.sacked) continue;
    r.sacked = true;
    untrim(r);
    note_delivered(r);
    ++newly;
    if (!newest_sacked_ || psn_diff(p, *newest_sacked_) > 0) newest_sacked_ = p;
  }
  return newly;
}

void SentPsnRecords::note_order_delivered(const Record& r, uint64_t now_ns, uint64_t min_rtt_ns) {
  if (r.transmissions > 1 && now_ns - r.last_sent_ns < min_rtt_ns) return;
  if (!newest_delivered_order_ || static_cast<int32_t>(r.send_order - *newest_delivered_order_) > 0)
    newest_delivered_order_ = r.send_order;
}

// Early loss: an outstanding p with a SACKed PSN at least N_OOO_THRESHOLD after it, sent at
// least SRTT ago (so each detection retransmits it once), overtaken by a later transmission
// that arrived, and either shown lost on its own EV or older than the reorder window as well.
void SentPsnRecords::early_losses(uint64_t now_ns, uint64_t wait_ns, uint64_t reorder_window_ns,
                                  AckOutcome& out) {
  if (!newest_sacked_) return;
  for (uint32_t p = psn_add(cumulative_, 1); p != next_psn_; p = psn_add(p, 1)) {
    if (psn_diff(*newest_sacked_, p) < static_cast<int32_t>(parameters_.ooo_threshold)) break;
    const Record& r = at(p);
    if (r.sacked || !r.reported_missing || now_ns < r.last_timed_ns || !overtaken(r))
      continue;  // or held
    const uint64_t age = now_ns - r.last_sent_ns;
    if (age >= wait_ns && (r.lost_on_its_ev || age >= wait_ns + reorder_window_ns)) {
      out.retransmit.push_back({p, RetransmitCause::kEarlyLoss});
      note_lost(r);
    }
  }
}

SentPsnRecords::EvDeliveries& SentPsnRecords::deliveries(uint16_t ev) {
  auto d = std::ranges::find_if(evs_, [&](const EvDeliveries& e) { return e.ev == ev; });
  if (d != evs_.end()) return *d;
  evs_.push_back({.ev = ev});
  return evs_.back();
}

void SentPsnRecords::note_delivered(const Record& r) {
  if (r.transmissions != 1) return;
  EvDeliveries& d = deliveries(r.ev);
  if (!d.delivered || static_cast<int32_t>(r.send_order - d.delivered_order) > 0)
    d.delivered_order = r.send_order;
  d.delivered = true;
  d.silent_since_ns.reset();
}

void SentPsnRecords::note_lost(const Record& r) {
  if (r.trimmed) return;
  EvDeliveries& d = deliveries(r.ev);
  if (d.delivered && static_cast<int32_t>(d.delivered_order - r.send_order) > 0) return;
  if (r.last_sent_ns < d.blamed_ns) return;
  d.silent_since_ns = std::min(d.silent_since_ns.value_or(r.last_sent_ns), r.last_sent_ns);
}

// Congestion drops some of an EV's packets and delivers the rest; a failed path delivers
// none. An EV whose oldest lost packet went out an RTO ago, with nothing delivered on it
// since, is silent: the RTO that SACK repair kept from expiring (MR-PF-18).
void SentPsnRecords::silent_evs(uint64_t now_ns, uint64_t rto_ns, AckOutcome& out) {
  for (EvDeliveries& d : evs_) {
    if (!d.silent_since_ns || now_ns < *d.silent_since_ns + rto_ns) continue;
    d.silent_since_ns.reset();
    if (now_ns - d.last_sent_ns >= rto_ns) continue;  // idle, not silent
    out.silent_evs.push_back(d.ev);
    d.blamed_ns = now_ns;
  }
}

// ARA loss: the ACK answers an AR, its bitmap reports p missing and a later PSN received.
void SentPsnRecords::ara_losses(const ExtAckReport& ack, uint64_t now_ns, uint64_t wait_ns,
                                AckOutcome& out) {
  if (!ack.ara || out.bitmap_ignored || ack.bitmap == 0) return;
  const uint32_t base = psn_add(
      ack.sack_ref, parameters_.reads_sack_offset ? static_cast<int16_t>(ack.sack_offset) : 0);
  const int last_received = 63 - std::countl_zero(ack.bitmap);
  for (int i = 0; i < last_received; ++i) {
    const uint32_t p = psn_add(base, i);
    // MR-SA-27 asks for these by PSN order, whatever was sent when: no RACK test here.
    if (((ack.bitmap >> i) & 1) != 0 || !outstanding(p) || now_ns < at(p).last_timed_ns) continue;
    const bool already = std::any_of(out.retransmit.begin(), out.retransmit.end(),
                                     [p](const Retransmission& r) { return r.psn == p; });
    if (!already && now_ns - at(p).last_sent_ns >= wait_ns) {
      out.retransmit.push_back({p, RetransmitCause::kAraLoss});
      note_lost(at(p));
    }
  }
}

AckOutcome SentPsnRecords::on_ack(const ExtAckReport& ack, uint64_t now_ns,
                                  const RtoEstimator& rto) {
  AckOutcome out;
  // A cumulative PSN is taken only when newer than ours and for PSNs we sent; an older one is
  // a stale ACK whose bitmap may still report something new, and whose MPR is not the newest.
  const int32_t ahead = psn_diff(ack.cumulative, cumulative_);
  const bool valid_cumulative = ahead > 0 && psn_diff(ack.cumulative, next_psn_) < 0;
  if (valid_cumulative) {
    for (uint32_t p = psn_add(cumulative_, 1); p != psn_add(ack.cumulative, 1); p = psn_add(p, 1)) {
      if (at(p).sacked) continue;
      untrim(at(p));
      note_delivered(at(p));
      note_order_delivered(at(p), now_ns, rto.min_rtt_ns());
      ++out.newly_acknowledged;
    }
    advance_cumulative(ack.cumulative);
    out.cumulative_advanced = true;
  }
  if (ahead >= 0) mpr_ = std::max<uint8_t>(ack.mpr, 1);
  out.newly_acknowledged += sack_bitmap(ack, now_ns, rto.min_rtt_ns(), out);
  last_activity_ns_ = now_ns;
  if (out.newly_acknowledged > 0) probes_since_progress_ = 0;
  const uint64_t wait_ns = rto.srtt_ns();
  // RACK's floor for the window (a quarter of the minimum RTT) was measured and left out: it
  // slowed recovery from a silent plane failure on the 8-plane fabric from 2.32 to 3.05x ideal.
  early_losses(now_ns, wait_ns, 4 * rto.rttvar_ns(), out);
  ara_losses(ack, now_ns, wait_ns, out);
  silent_evs(now_ns, rto.rto_ns(), out);
  return out;
}

void SentPsnRecords::untrim(Record& r) {
  if (!r.trimmed) return;
  r.trimmed = false;
  --trimmed_;
}

std::optional<Retransmission> SentPsnRecords::on_trim_nak(uint32_t psn) {
  if (!outstanding(psn)) return std::nullopt;
  Record& r = at(psn);
  if (!r.trimmed) {
    r.trimmed = true;
    ++trimmed_;
  }
  return Retransmission{psn, RetransmitCause::kTrim};
}

void SentPsnRecords::hold(uint32_t psn, uint64_t until_ns) {
  if (!outstanding(psn)) return;
  Record& r = at(psn);
  r.last_timed_ns = std::max(r.last_timed_ns, until_ns);
}

TimerOutcome SentPsnRecords::on_timer(uint64_t now_ns, const RtoEstimator& rto) {
  TimerOutcome out;
  std::optional<uint32_t> newest_outstanding;
  for (uint32_t p = psn_add(cumulative_, 1); p != next_psn_; p = psn_add(p, 1)) {
    Record& r = at(p);
    if (r.sacked) continue;
    if (now_ns < r.last_timed_ns) continue;  // held (hold()): not due, not to be probed
    newest_outstanding = p;
    // A trimmed PSN is not lost in the network but waiting for the window (section 26.2):
    // its clock restarts when it is sent again.
    if (r.trimmed) continue;
    if (now_ns - r.last_timed_ns < rto.backed_off(r.consecutive_timeouts)) continue;
    ++r.consecutive_timeouts;
    if (parameters_.retry_limit != ExtSenderParameters::kUnlimitedRetries &&
        r.consecutive_timeouts > parameters_.retry_limit) {
      out.retry_exceeded = p;
      return out;
    }
    out.retransmit.push_back({p, RetransmitCause::kTimeout});
  }
  // The tail-loss probe: PSNs outstanding, an RTT sample, and nothing for PTO.
  const uint64_t pto =
      std::max(parameters_.tlp_min_ns, parameters_.tlp_srtt_factor * rto.srtt_ns());
  if (newest_outstanding && out.retransmit.empty() && rto.has_sample() &&
      probes_since_progress_ < parameters_.tlp_max_probes && now_ns - last_activity_ns_ >= pto) {
    ++probes_since_progress_;
    out.retransmit.push_back({*newest_outstanding, RetransmitCause::kProbe});
  }
  return out;
}

std::optional<uint64_t> SentPsnRecords::next_timer_ns(const RtoEstimator& rto) const {
  const uint64_t probe_ns =
      last_activity_ns_ +
      std::max(parameters_.tlp_min_ns, parameters_.tlp_srtt_factor * rto.srtt_ns());
  std::optional<uint64_t> next;
  bool probe_target = false;
  for (uint32_t p = psn_add(cumulative_, 1); p != next_psn_; p = psn_add(p, 1)) {
    const Record& r = at(p);
    if (r.sacked || r.trimmed) continue;
    const uint64_t due = r.last_timed_ns + rto.backed_off(r.consecutive_timeouts);
    next = next ? std::min(*next, due) : due;
    // A PSN held past the probe's time (hold()) is not its target: waking for a probe that
    // on_timer() will not send would spin.
    if (r.last_timed_ns <= probe_ns) probe_target = true;
  }
  if (probe_target && rto.has_sample() && probes_since_progress_ < parameters_.tlp_max_probes)
    next = std::min(*next, probe_ns);
  return next;
}

}  // namespace mr::transport::ext
