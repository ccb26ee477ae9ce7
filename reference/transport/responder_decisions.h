// File: responder_decisions.h
//
// The decisions the RC and UC responder makes (MR-PS, MR-AK, MR-RN, MR-RD, MR-AT, MR-MP, MR-UC):
// what its ACKs and NAKs carry, which checks a request passes, how it places and answers.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct ResponderDecisions {
  // The PSN check and the receive WQE (MR-PS, MR-RN).
  bool refuses_psn_ahead = true;           // MR-PS-03 MR-PS-04: no execute-ahead
  bool uc_drops_message_after_gap = true;  // MR-UC-02
  bool sends_rnr_nak = true;               // MR-RN-01
  bool rnr_nak_only_for_send = true;       // MR-RN-06: a plain WRITE needs no receive WQE
  bool rnr_nak_keeps_epsn = true;          // MR-RN-02

  // Memory protection (MR-MP).
  bool zero_length_skips_rkey = true;            // MR-RD-04 MR-MP-06
  bool checks_rkey_range = true;                 // MR-MP-02
  bool checks_mr_access = true;                  // MR-MP-04 MR-AT-05
  bool checks_rkey_pd = true;                    // MR-MP-03
  bool naks_rkey_error_as_remote_access = true;  // MR-MP-01: 0x62, not 0x61
  bool refuses_misaligned_atomic = true;         // MR-AT-03

  // Executing SEND and WRITE.
  bool fails_long_send = true;                      // MR-MP-08: no truncation
  bool completes_failed_receive = true;             // MR-CQ-06
  bool places_send_beyond_64k = true;               // MR-MP-14
  bool places_write_beyond_64k = true;              // MR-MP-13
  bool invalidates_on_send_with_invalidate = true;  // MR-MP-09
  bool rearms_sequence_nak = true;                  // MR-PS-06

  // READ and ATOMIC (MR-RD, MR-AT).
  bool holds_max_dest_rd_atomic = true;             // MR-RD-08
  bool read_responses_start_at_request_psn = true;  // MR-RD-02
  bool read_first_full_mtu = true;                  // MR-RD-01
  bool read_middle_without_aeth = true;             // MR-RD-03
  bool reads_beyond_64k = true;                     // MR-RD-15
  bool compare_swap_compares = true;                // MR-AT-01
  bool fetch_add_returns_original = true;           // MR-AT-02

  // ACKs (MR-AK).
  bool uc_silent = true;                // MR-UC-01: a UC responder never acknowledges
  bool acks_every_ackreq = true;        // MR-AK-01
  bool ack_carries_request_psn = true;  // MR-AK-02
  bool reports_true_msn = true;         // MR-AK-03
  bool acks_plain = true;               // MR-AK-14: no Solicited, no AckReq

  // Duplicates and errors.
  bool answers_duplicate_read = true;                // MR-RD-07
  bool replays_saved_atomic = true;                  // MR-AT-04
  bool executes_duplicate_write_once = true;         // MR-PS-07 MR-AK-11
  bool duplicate_ack_carries_epsn_minus_one = true;  // MR-AK-11
  bool one_nak_per_sequence_error = true;            // MR-PS-05
  bool sequence_nak_carries_epsn = true;             // MR-PS-04
  bool uc_silent_on_stray_middle = true;             // MR-UC-03: drop, no Error state
  bool uc_silent_on_rkey_error = true;               // MR-UC-04 MR-UC-01

  static std::span<const DecisionRow<ResponderDecisions>> rows();
  bool operator==(const ResponderDecisions&) const = default;
};

}  // namespace mr::transport
