// File: ack_policy.h
//
// When an Ext receiver acknowledges, and what its ACK says (spec sections 19.3 and 21.1;
// MR-SA-08, MR-SA-13, MR-MU-07, MR-MU-17). Every accepted or duplicate packet is answered
// within T_EXT_ACK_DELAY, at least one ACK goes per N_EXT_ACK_EVERY accepted packets, and one
// ACK may cover several packets; a packet with AR = 1, a PROBE and (with ADAPTIVE) a
// CE-marked packet are each the triggering packet of an ACK of their own, due at once. The
// SACKETH echoes the triggering packet (the newest one answered): its EV and plane, CE mark,
// duplicate flag, TX timestamp, and the time since it arrived; the CE count covers every
// packet since the previous ACK; the bitmap is SackCursor's. An AR packet whose ACK still
// showed a hole below it is answered once more, at once, when the holes fill (MR-SA-30): a
// sender that asked about its tail learns when the tail is complete, not T_EXT_ACK_DELAY
// after its last straggler arrived.
//
//   policy.on_packet(packet);                       // after ReceivedPsnWindow::record
//   policy.on_cumulative(window.cumulative());
//   if (policy.ack_due(now)) send(cumulative, policy.build(window, cursor, now));
#pragma once

#include <cstdint>
#include <optional>

#include "reference/transport/ext/received_psn_window.h"
#include "reference/transport/ext/sack_bitmap.h"
#include "reference/wire/sacketh.h"

namespace mr::transport::ext {

// The PIXIT defaults of section 30, in ns.
struct AckParameters {
  uint64_t delay_ns = 20'000;  // T_EXT_ACK_DELAY
  uint32_t every = 8;          // N_EXT_ACK_EVERY
  bool adaptive = false;       // ADAPTIVE enabled: every CE-marked packet gets its own ACK
  // The packet that moves the cumulative PSN past an AR = 1 packet answered early is a
  // trigger of its own (MR-SA-30); only the ext-awaited-ar-ack-delayed mutant waits.
  bool answers_awaited_ar = true;
  // MR-SC-08: the SACKETH service time is the time the trigger waited; only the
  // ext-service-time-zero mutant reports 0.
  bool reports_service_time = true;
  // MR-SA-09: the MPR the receiver grants; only mutants advertise 0 (ext-mpr-zero) or one
  // unit less in each ACK (ext-window-shrinks).
  bool advertises_mpr = true;
  bool keeps_window = true;
  // Section 21.1: an ACK answering AR reports its trigger and the 56 PSNs before it; the
  // ext-sack-base-early mutant starts at the trigger itself (MR-SA-18).
  uint32_t ara_lookback = 56;
  bool rotates_bitmap = true;  // MR-SA-19 (false for the ext-sack-no-rotation mutant)
};

// An accepted or duplicate data packet, as the ACK echoes it.
struct AnsweredPacket {
  uint32_t psn = 0;
  bool duplicate = false;
  bool ack_request = false;              // MXH AR
  bool probe = false;                    // a PROBE (answered with PRB = 1)
  bool ce = false;                       // arrived CE-marked
  bool remarked = false;                 // a trim mark on a whole packet: TRM = 1 (MR-TR-12)
  uint16_t ev = 0;                       // MXH EV
  uint8_t plane = 0;                     // MXH plane
  std::optional<uint32_t> tx_timestamp;  // MXH TX timestamp when TSV = 1
  uint64_t arrived_ns = 0;
};

class AckPolicy {
 public:
  explicit AckPolicy(AckParameters parameters) : parameters_(parameters) {}

  void on_packet(const AnsweredPacket& packet);
  // A packet beyond the window was discarded (OOW in the next ACK).
  void on_beyond_window() { beyond_window_ = true; }
  // The cumulative PSN is now `c`: if it reached an AR packet answered while a hole lay
  // below it, the packets not yet answered are answered at once (MR-SA-30).
  void on_cumulative(uint32_t c);

  // An ACK is owed now: an ACK request, a probe, a CE mark under ADAPTIVE, N_EXT_ACK_EVERY
  // accepted packets, or the oldest unanswered packet's T_EXT_ACK_DELAY reached.
  bool ack_due(uint64_t now_ns) const;
  // When the owed ACK must leave at the latest; none when nothing is unanswered.
  std::optional<uint64_t> deadline() const;

  // The SACKETH of the ACK that answers everything so far; clears what it answered.
  wire::Sacketh build(const ReceivedPsnWindow& window, SackCursor& cursor, uint64_t now_ns);

 private:
  AckParameters parameters_;
  std::optional<AnsweredPacket> trigger_;  // the newest unanswered packet
  std::optional<uint64_t> oldest_unanswered_ns_;
  uint32_t accepted_since_ack_ = 0;
  uint32_t ce_since_ack_ = 0;
  uint32_t acks_built_ = 0;  // for the ext-window-shrinks mutant
  bool immediate_ = false;   // AR, probe or adaptive CE among the unanswered
  bool ara_ = false;         // the trigger carried AR
  bool beyond_window_ = false;
  // The newest AR packet whose ACK reported a cumulative PSN before it.
  std::optional<uint32_t> awaited_ar_psn_;
};

}  // namespace mr::transport::ext
