// File: sent_psn_records.h
//
// An Ext sender's record of every PSN it has sent and not yet seen cumulatively acknowledged
// (spec section 21.2): when, on which EV and plane, how often, whether a SACK reported it,
// and the decisions they feed: which PSNs to retransmit (early loss, ARA loss, timeout, a
// NAK), when to send a tail-loss probe, whether a new PSN fits the window (MR-SA-07), and when
// the retry budget is spent (MR-SA-11). ACKs are taken idempotently (MR-SA-06): a stale, a
// repeated or a reordered ACK never moves the cumulative PSN back or reports a PSN twice.
//
// Early loss keeps MR-SA-26's two conditions (N_OOO_THRESHOLD later PSNs SACKed, SRTT since
// the last transmission) and adds two that the clause leaves room for ("only when"). A
// bitmap since the last transmission showed the PSN as a hole (bitmaps cover 64 PSNs of a
// window of thousands and rotate: a PSN none covered yet is unknown, not missing). And the
// same report shows a PSN sent later on the same EV received, which on a path that keeps its
// order means the PSN was lost, not overtaken on a faster path (as RACK reasons from send
// order, per path as in MP-RDMA). Without that evidence (the PSN's path may be dead) it
// waits the reorder window as well: SRTT + 4 x RTTVAR in all. Spraying over planes whose
// queues differ otherwise retransmitted six PSNs for every one the fabric dropped.
//
// A lost PSN goes again on another EV about an SRTT later, so a path that fails silently
// causes no RTO: the records also report an EV that has delivered nothing for an RTO since
// a packet on it was declared lost (MR-PF-18, AckOutcome::silent_evs).
//
// The records are a ring indexed by PSN, grown to the PSNs in flight (at most the window):
// 32 bytes per PSN in flight, and 40 bytes per EV used.
//
//   SentPsnRecords sent(first_psn, ExtSenderParameters{});
//   if (sent.may_send_new(psn)) sent.on_sent(psn, now, ev, plane, /*probe=*/false);
//   AckOutcome a = sent.on_ack(ack, now, rto);   // a.retransmit: PSNs to send again
//   TimerOutcome t = sent.on_timer(now, rto);      // timeouts, a probe, or the QP's failure
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "reference/transport/ext/rto_estimator.h"

namespace mr::transport::ext {

// The PIXIT defaults of section 30.
struct ExtSenderParameters {
  uint32_t ooo_threshold = 8;    // N_OOO_THRESHOLD
  uint32_t retry_limit = 7;      // N_EXT_RETRY; kUnlimitedRetries never fails the QP
  uint64_t tlp_min_ns = 10'000;  // T_SA_TLP_MIN
  uint32_t tlp_srtt_factor = 2;  // R_SA_TLP_SRTT_FACTOR
  uint32_t tlp_max_probes = 1;   // N_SA_TLP_MAX
  // Section 21.2's rules that only mutants switch off: a probe leaves its PSN's RTO running
  // from the last other transmission (MR-SA-25), and new PSNs stay inside the MPR window the
  // receiver advertised (MR-SA-07; off: the largest, 255).
  bool probe_keeps_rto = true;
  bool follows_advertised_mpr = true;
  // Bitmap bit i is PSN SACK reference + SACK offset + i (MR-SA-21; off: the offset ignored).
  bool reads_sack_offset = true;
  static constexpr uint32_t kUnlimitedRetries = 25;
};

// What an Ext ACK (or NAK) tells the sender: BTH PSN and the SACKETH's report.
struct ExtAckReport {
  uint32_t cumulative = 0;   // BTH PSN
  uint32_t sack_ref = 0;     // R
  uint16_t sack_offset = 0;  // O as sent (two's complement)
  uint64_t bitmap = 0;       // bit i: PSN R + O + i
  bool ara = false;
  uint8_t mpr = 1;
};

// kTrim: NAK 0x65/0x66, the packet cut in the fabric and no longer in flight.
enum class RetransmitCause : uint8_t { kEarlyLoss, kAraLoss, kTimeout, kProbe, kNak, kTrim };

struct Retransmission {
  uint32_t psn = 0;
  RetransmitCause cause = RetransmitCause::kTimeout;
};

struct AckOutcome {
  bool cumulative_advanced = false;
  uint32_t newly_acknowledged = 0;  // PSNs cumulatively acked or SACKed for the first time
  bool bitmap_ignored = false;      // O not a multiple of 8
  std::vector<Retransmission> retransmit;
  // MR-PF-18 (section 25.1): EVs that delivered nothing for an RTO after a packet sent on
  // them was declared lost by SACK: to be treated as an RTO on that EV (MR-PF-01). Each EV
  // once per such silence.
  std::vector<uint16_t> silent_evs;
};

struct TimerOutcome {
  std::vector<Retransmission> retransmit;  // timeouts, then a probe
  // A PSN timed out N_EXT_RETRY + 1 consecutive times without the cumulative PSN advancing:
  // the QP fails with retry-exceeded (section 21.2).
  std::optional<uint32_t> retry_exceeded;
};

class SentPsnRecords {
 public:
  SentPsnRecords(uint32_t first_psn, ExtSenderParameters parameters);

  // A new PSN p fits: (p - (C + 1)) mod 2^24 < 128 x MPR.
  bool may_send_new(uint32_t psn) const;
  // Records a first transmission (psn = next_psn()) or a retransmission of an outstanding
  // PSN; a probe's time does not restart the PSN's RTO (section 21.2).
  void on_sent(uint32_t psn, uint64_t now_ns, uint16_t ev, uint8_t plane, bool probe);
  AckOutcome on_ack(const ExtAckReport& ack, uint64_t now_ns, const RtoEstimator& rto);
  // NAK 0x65/0x66 (trimmed) for p: p again, if it is outstanding. Until p is sent again or
  // acknowledged it counts as trimmed: cut in the fabric, no longer in flight.
  std::optional<Retransmission> on_trim_nak(uint32_t psn);
  // The receiver asked for `psn` again no sooner than `until_ns` (an RNR NAK, MR-OO-12; NAK
  // 0x6B, MR-NF-08): until then it neither times out nor is probed, and its RTO runs from
  // then. Nothing for a PSN not outstanding.
  void hold(uint32_t psn, uint64_t until_ns);
  // Outstanding PSNs a trim NAK reported and that have not been sent again.
  uint32_t trimmed() const { return trimmed_; }
  // What the timers ask for now. The caller sends each retransmission and records it with
  // on_sent (a probe with probe = true), which restarts that PSN's clock.
  TimerOutcome on_timer(uint64_t now_ns, const RtoEstimator& rto);
  // The earliest time on_timer() would ask for something (a timeout or a probe); none while
  // nothing is outstanding. A device sleeps until then.
  std::optional<uint64_t> next_timer_ns(const RtoEstimator& rto) const;

  const ExtSenderParameters& parameters() const { return parameters_; }
  uint32_t cumulative() const { return cumulative_; }
  uint32_t next_psn() const { return next_psn_; }
  uint8_t mpr() const { return mpr_; }
  // Sent, neither cumulatively acknowledged nor SACKed.
  bool outstanding(uint32_t psn) const;
  // The EV a PSN in flight last went out with (to blame its path when it times out).
  std::optional<uint16_t> last_ev(uint32_t psn) const;
  // How often a PSN in flight has been sent (probes included); 0 for one not in flight.
  uint16_t transmissions(uint32_t psn) const;
  size_t outstanding_count() const;
  size_t heap_bytes() const {
    return ring_.capacity() * sizeof(Record) + evs_.capacity() * sizeof(EvDeliveries);
  }

 private:
  struct Record {
    uint64_t last_sent_ns = 0;
    uint64_t last_timed_ns = 0;  // the last transmission other than a probe
    uint32_t send_order = 0;     // of the last transmission, counted over every PSN
    uint16_t ev = 0;
    uint8_t plane = 0;
    uint8_t consecutive_timeouts = 0;
    uint16_t transmissions = 0;
    bool sacked = false;
    bool trimmed = false;  // a trim NAK reported it; cleared when it is sent again
    // A bitmap since its last transmission showed it as a hole below a received PSN; one
    // that no bitmap covered yet is not known missing (section 21.2's reading rule).
    bool reported_missing = false;
    // One bitmap since its last transmission showed it missing and, in the same report, a PSN
    // sent after it on its EV received: lost, since one EV keeps one path and a path keeps
    // order. Two reports do not make that proof: the one that saw the later PSN may not
    // cover this one, which may have arrived in between.
    bool lost_on_its_ev = false;
  };
  // Clears r's trimmed mark (sent again, or acknowledged), keeping trimmed_ exact.
  void untrim(Record& r);

  bool sent(uint32_t psn) const;  // after C and before next_psn
  Record& at(uint32_t psn);
  const Record& at(uint32_t psn) const;
  void grow();
  void advance_cumulative(uint32_t to);
  uint32_t sack_bitmap(const ExtAckReport& ack, uint64_t now_ns, uint64_t min_rtt_ns,
                       AckOutcome& out);
  struct EvDeliveries;
  EvDeliveries& deliveries(uint16_t ev);
  // r's last transmission counts as delivered (RACK), unless it went again sooner than the
  // minimum RTT ago: then an earlier copy arrived, which says nothing about order.
  void note_order_delivered(const Record& r, uint64_t now_ns, uint64_t min_rtt_ns);
  // Whether something sent after r's last transmission has been delivered.
  bool overtaken(const Record& r) const {
    return newest_delivered_order_ &&
           static_cast<int32_t>(*newest_delivered_order_ - r.send_order) > 0;
  }
  // r was acknowledged: if it was sent once, its EV delivered and is not silent. Which copy
  // of a retransmitted PSN arrived, on which EV, is unknown (Karn).
  void note_delivered(const Record& r);
  // r, last sent on its EV, was declared lost by SACK: unless the EV delivered a packet sent
  // after r (congestion, not silence), a trim cut r (MR-PF-19), or r left before the EV's
  // last blame, the EV's silence starts at the oldest such transmission.
  void note_lost(const Record& r);
  // Reports the EVs silent for an RTO that carried a packet within the last RTO (one that
  // carried nothing since is idle, not silent).
  void silent_evs(uint64_t now_ns, uint64_t rto_ns, AckOutcome& out);
  void early_losses(uint64_t now_ns, uint64_t wait_ns, uint64_t reorder_window_ns, AckOutcome& out);
  void ara_losses(const ExtAckReport& ack, uint64_t now_ns, uint64_t wait_ns, AckOutcome& out);

  ExtSenderParameters parameters_;
  uint32_t cumulative_;  // C: every PSN up to it acknowledged
  uint32_t next_psn_;    // the next new PSN
  uint8_t mpr_ = 1;      // the newest window the receiver advertised
  std::optional<uint32_t> newest_sacked_;
  // The newest transmission (send_order) an ACK has shown delivered: a PSN is lost only when
  // something sent after its last transmission arrived (RACK). Without it, a retransmission
  // still in flight looked lost again to the bitmaps its peer sent before it arrived, and
  // went again one SRTT later; its EV then looked silent (MR-PF-18) at the end of a transfer.
  std::optional<uint32_t> newest_delivered_order_;
  // The last ACK or NAK received, new PSN or probe sent: the probe timeout runs from it.
  uint64_t last_activity_ns_ = 0;
  // Probes since the last ACK that acknowledged or SACKed a PSN for the first time.
  uint32_t probes_since_progress_ = 0;
  std::vector<Record> ring_;  // PSN p at p mod size; a power of two
  uint32_t send_order_ = 0;   // transmissions so far
  uint32_t trimmed_ = 0;      // records with the trimmed mark
  // Per EV used: what it delivered and MR-PF-18's silence. At most the QP's EV set (16
  // entries by default): a flat vector searched linearly.
  struct EvDeliveries {
    uint16_t ev = 0;
    bool delivered = false;
    uint32_t delivered_order = 0;             // the newest transmission on it acknowledged
    uint64_t last_sent_ns = 0;                // its newest transmission
    std::optional<uint64_t> silent_since_ns;  // the oldest packet on it declared lost since
    uint64_t blamed_ns = 0;                   // when it was last reported silent
  };
  std::vector<EvDeliveries> evs_;
};

}  // namespace mr::transport::ext
