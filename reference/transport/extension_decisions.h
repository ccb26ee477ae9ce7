// File: extension_decisions.h
//
// The decisions of extension mode (Part II) that a mutant can break: negotiation
// (MR-EX), the receiver's and the sender's selective ACK and timers (MR-SA), out-of-order
// placement (MR-OO), the extension NAKs (MR-NK), trimming (MR-TR), and non-fatal errors
// with RESYNC (MR-NF), and multipath and path failure (MR-MU, MR-PF).
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct ExtensionDecisions {
  Decision negotiates_ext{true};                // MR-EX-01: both blocks valid -> Ext
  Decision requires_sack_and_ooo{true};         // MR-EX-01: a block without them -> base
  Decision drops_base_packets{true};            // MR-EX-05: an Ext QP drops TVer 0
  Decision sack_bitmap_aligned{true};           // MR-SA-17: bit i reports base + i
  Decision answers_ack_request_with_ara{true};  // MR-SA-20
  Decision echoes_ev{true};                     // MR-SA-20, MR-MU-07
  Decision flags_duplicates{true};              // MR-SA-13
  Decision accepts_out_of_order{true};          // MR-OO-01, MR-OO-09: not go-back-N
  Decision checks_mxh_version{true};            // MR-EX-07
  Decision rnr_leaves_psn_unrecorded{true};     // MR-OO-11
  Decision holds_early_requests{true};          // MR-OO-10: READ/ATOMIC wait for the gap
  Decision read_responses_without_ar{true};     // MR-SA-29: AR = 0 in every READ response
  Decision oow_nak_names_packet{true};          // MR-NK-06: NAK 0x67 carries the packet's PSN
  // The sender (section 21.2, section 22).
  Decision retransmits_only_outstanding{true};  // MR-SA-04: never a SACKed PSN
  Decision marks_retransmissions{true};         // MR-SA-12: RETX = 1 on every retransmission
  Decision repairs_ara_losses{true};            // MR-SA-27: an ARA = 1 ACK's holes go at once
  Decision checks_sack_offset{true};            // MR-SA-22: an unaligned offset voids the bitmap
  Decision naks_acknowledge_nothing{true};      // MR-NK-02: 0x65-0x67 acknowledge no PSN
  Decision ignores_nak_0x60{true};              // MR-NK-05: no go-back-N on an Ext QP
  // Trimming (section 23).
  Decision marks_control_dscp{true};          // MR-TR-15: ACKs and NAKs at DSCP 46
  Decision naks_last_hop_trims_0x66{true};    // MR-TR-11
  Decision trimmed_psn_unrecorded{true};      // MR-TR-03
  Decision naks_only_new_trimmed_psns{true};  // MR-TR-04: duplicates, beyond window: silent
  Decision trim_ignores_ip_checksum{true};    // MR-TR-14
  Decision signals_remarked_packets{true};    // MR-TR-12: TRM = 1 for a whole marked packet
  Decision trim_nak_retransmits_one{true};    // MR-TR-05: that PSN alone
  Decision discards_trimmed_control{true};    // MR-TR-16: a cut ACK changes nothing
  Decision trims_only_when_agreed{true};      // MR-TR-08: without TRIM, an ICRC failure
  // Non-fatal errors and RESYNC (sections 22.1, 22.3).
  Decision nonfatal_keeps_qp{true};             // MR-NF-02: NAK 0x68-0x6A, the QP in RTS
  Decision failed_psn_unrecorded{true};         // MR-NF-03: a hole until a RESYNC
  Decision naks_refused_messages{true};         // MR-NF-07: NAK 0x6B, not silence
  Decision refused_psn_unrecorded{true};        // MR-NF-07: nothing recorded or placed
  Decision resync_records_range{true};          // MR-NF-10
  Decision resyncs_failed_operations{true};     // MR-NF-05: RESYNC, not the data again
  Decision operation_naks_need_nonfatal{true};  // MR-NF-15: ignored without NONFATAL
  // The sender's timers (section 21.2).
  Decision waits_rto_init{true};                // MR-SA-14: T_EXT_RTO_INIT before a sample
  Decision backs_off_rto{true};                 // MR-SA-28: each timeout doubles the RTO
  Decision fails_after_retry_budget{true};      // MR-SA-11: N_EXT_RETRY + 1 timeouts
  Decision read_outlives_cumulative_ack{true};  // MR-SA-16: no implicit NAK of a READ
  Decision rnr_retransmits_one{true};           // MR-OO-12: the RNR NAK's PSN alone
  // Multipath and path failure (sections 20, 25).
  Decision retransmits_on_other_ev{true};      // MR-MU-08: not the previous transmission's
  Decision denied_ev_unused{true};             // MR-MU-04, MR-PF-11
  Decision rto_assumes_ev_bad{true};           // MR-PF-01 (and MR-PF-18's silent EVs)
  Decision blames_silent_evs{true};            // MR-PF-18: a silent EV as its RTO would
  Decision keeps_min_active_evs{true};         // MR-PF-05
  Decision probes_assumed_bad_evs{true};       // MR-PF-03: with PATHPROBE
  Decision probe_answer_restores_ev{true};     // MR-PF-12
  Decision answers_probes{true};               // MR-PF-08
  Decision ecn_leaves_ev_good{true};           // MR-PF-19: ECE = 1 is congestion, not failure
  Decision port_down_stops_evs{true};          // MR-PF-07
  Decision holds_port_after_up{true};          // MR-PF-16: T_PF_PORT_UP_HOLD, T_PF_FLAP_HOLD
  Decision sprays_with_multipath{true};        // MR-MU-01: oblivious first transmissions
  Decision single_ev_without_multipath{true};  // MR-MU-09
  Decision sport_is_ev{true};                  // MR-MU-02: EV mode UDP
  Decision default_evs_aligned{true};          // MR-MU-11: EV_i from 16 x QPN + i
  Decision spurious_rto_restores_ev{true};     // MR-PF-14
  Decision holddown_returns_ev{true};          // MR-PF-13: without PATHPROBE
  Decision blames_ack_paths{true};             // MR-PF-15: the receiver's ACK-path rule
  Decision damps_flapping_evs{true};           // MR-PF-17, MR-PF-16: N_PF_FLAP_MAX failures
  Decision trim_nak_leaves_ev_good{true};      // MR-TR-06: a trim is congestion, not failure
  Decision fatal_naks_without_nonfatal{true};  // MR-NK-07: 0x61-0x63 and Error, as in base
  Decision ignores_reserved_bits{true};        // MR-EX-09: MXH reserved bits on receipt
  Decision adaptive_explores{true};  // MR-MU-15: every N_MU_EXPLORE_EVERY-th takes the cursor
  Decision adaptive_recycles{true};  // MR-MU-14: a clean ACK's EV is reused soon
  Decision checks_rkey_on_any_packet{true};  // MR-OO-03: whichever WRITE packet comes first
  // Adaptive selection (section 20.4).
  Decision holds_marked_evs{true};            // MR-MU-13: ECE, TRM or NAK 0x65 holds the EV
  Decision adapts_only_when_agreed{true};     // MR-MU-12: ADAPTIVE in both blocks
  Decision acks_each_ce_when_adaptive{true};  // MR-MU-17
  // Receiver credits (section 26.7).
  Decision respects_credit_limit{true};        // MR-CR-02
  Decision retransmits_within_credit{true};    // MR-CR-06: a retransmission waits for credit
  Decision takes_only_newer_grants{true};      // MR-CR-05: modulo 2^16 order
  Decision reports_pending{true};              // MR-CR-04: MXH Pending
  Decision echoes_credit{true};                // MR-CR-07: CRV = 1 and G in every ACK
  Decision raises_only_on_demand{true};        // MR-CR-08: D > 0
  Decision raises_round_robin{true};           // MR-CR-11: from the QP after the last raised
  Decision bounds_outstanding_credit{true};    // MR-CR-09: B_CR_MAX_OUTSTANDING
  Decision paces_credit{true};                 // MR-CR-10: R_CR_LINK_SHARE x line rate
  Decision expires_credit{true};               // MR-CR-14: T_CR_TIMEOUT
  Decision credit_packet_at_cumulative{true};  // MR-CR-15
  Decision leaves_credit_unanswered{true};     // MR-CR-16
  Decision credit_only_when_agreed{true};      // MR-CR-01
  Decision sends_credit_packets{true};         // MR-CR-13: a raise with no ACK due
  // The sender window (section 26).
  Decision starts_at_cwnd_init{true};            // MR-SC-02
  Decision respects_cwnd{true};                  // MR-SC-01
  Decision increases_proportionally{true};       // MR-SC-15
  Decision increases_fairly{true};               // MR-SC-16
  Decision decreases_on_ecn_and_delay{true};     // MR-SC-13
  Decision ecn_low_delay_holds{true};            // MR-SC-14
  Decision gates_decrease{true};                 // MR-SC-17: once per base_rtt
  Decision samples_base_rtt{true};               // MR-SC-23
  Decision base_rtt_starts_at_parameter{true};   // MR-SC-23: at T_SC_BASE_RTT, not a sample
  Decision cc_suppresses_cnp{true};              // MR-SC-09, section 26.6
  Decision timestamps_retransmissions{true};     // MR-SC-11
  Decision counts_ce_marks{true};                // MR-SC-06: since the previous ACK
  Decision tse_follows_tsv{true};                // MR-SC-07
  Decision trim_takes_packet_off{true};          // MR-SC-18: not a decrease
  Decision quick_adapts{true};                   // MR-SC-19
  Decision ignores_ecn_after_quick_adapt{true};  // MR-SC-19
  Decision paces{true};                          // MR-SC-24
  // The sender's tail-loss probe and window (section 21.2).
  Decision probes_tail_losses{true};       // MR-SA-23
  Decision bounds_tail_loss_probes{true};  // MR-SA-24: N_SA_TLP_MAX
  Decision probe_keeps_rto{true};          // MR-SA-25
  Decision respects_mpr_window{true};      // MR-SA-07
  // The receiver's ACK policy and RESYNC (sections 21.1, 22.3).
  Decision acks_every_n{true};                  // MR-SA-08: N_EXT_ACK_EVERY
  Decision answers_awaited_ar{true};            // MR-SA-30
  Decision discards_empty_resync{true};         // MR-NF-12: count 0
  Decision checks_resync_window{true};          // MR-NF-12: NAK 0x67
  Decision reissues_from_missing{true};         // MR-SA-15: the READ's rest only
  Decision reads_sack_offset{true};             // MR-SA-21
  Decision waits_ooo_threshold{true};           // MR-SA-26: N_OOO_THRESHOLD
  Decision naks_short_trims{true};              // MR-TR-09: down to B_TRIM_MIN
  Decision reissues_on_trimmed_response{true};  // MR-TR-17
  Decision backs_off_resource_naks{true};       // MR-NF-08
  Decision bounds_resource_naks{true};          // MR-NF-09: N_NF_RESOURCE_RETRY
  Decision resends_resync{true};                // MR-NF-13: not the data it covers
  Decision tolerates_stale_acks{true};          // MR-SA-06
  Decision ignores_creth_reserved_bits{true};   // MR-EX-13
  // Secure mode (section 19.4).
  Decision secure_requires_sa{true};                // MR-SE-01: no SAs, no transition
  Decision secure_sets_sx{true};                    // MR-SE-12: SX = 1 on every packet
  Decision secure_checks_tag{true};                 // MR-SE-05: the packet tag
  Decision secure_checks_replay{true};              // MR-SE-06
  Decision secure_accepts_reordered_pns{true};      // MR-SE-07
  Decision secure_new_pn_per_packet{true};          // MR-SE-04
  Decision secure_rotates_on_request{true};         // MR-SE-08
  Decision secure_drains_previous_epoch{true};      // MR-SE-09: T_SE_KEY_DRAIN
  Decision secure_trim_checks_htag{true};           // MR-SE-10
  Decision secure_refuses_sx_without_secure{true};  // MR-SE-13: SX = 1, no SECURE
  Decision secure_needs_both_blocks{true};          // MR-SE-01: SECURE in both MXCAPs
  Decision secure_rekeys_at_limit{true};            // MR-SE-08: N_SE_REKEY_PACKETS
  Decision keeps_ext_mode_until_reset{true};        // MR-EX-10
  Decision reports_service_time{true};              // MR-SC-08
  Decision advertises_mpr{true};                    // MR-SA-09: never 0
  Decision keeps_window_edge{true};                 // MR-SA-09: the right edge never moves back
  Decision offsets_only_beyond_64{true};            // MR-SA-18: offset 0 within R + 63
  Decision rotates_sack_bitmap{true};               // MR-SA-19
  Decision resyncs_local_errors{true};              // MR-NF-14: RESYNC code 2

  static std::span<const DecisionRow<ExtensionDecisions>> rows();
  bool operator==(const ExtensionDecisions&) const = default;
};

}  // namespace mr::transport
