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
  Decision refuses_psn_ahead{true};           // MR-PS-03 MR-PS-04: no execute-ahead
  Decision uc_drops_message_after_gap{true};  // MR-UC-02
  Decision sends_rnr_nak{true};               // MR-RN-01
  Decision rnr_nak_only_for_send{true};       // MR-RN-06: a plain WRITE needs no receive WQE
  Decision rnr_nak_keeps_epsn{true};          // MR-RN-02

  // Memory protection (MR-MP).
  Decision zero_length_skips_rkey{true};            // MR-RD-04 MR-MP-06
  Decision checks_rkey_range{true};                 // MR-MP-02
  Decision checks_mr_access{true};                  // MR-MP-04 MR-AT-05
  Decision checks_rkey_pd{true};                    // MR-MP-03
  Decision naks_rkey_error_as_remote_access{true};  // MR-MP-01: 0x62, not 0x61
  Decision refuses_misaligned_atomic{true};         // MR-AT-03

  // Executing SEND and WRITE.
  Decision fails_long_send{true};                      // MR-MP-08: no truncation
  Decision completes_failed_receive{true};             // MR-CQ-06
  Decision places_send_beyond_64k{true};               // MR-MP-14
  Decision places_write_beyond_64k{true};              // MR-MP-13
  Decision invalidates_on_send_with_invalidate{true};  // MR-MP-09
  Decision rearms_sequence_nak{true};                  // MR-PS-06

  // READ and ATOMIC (MR-RD, MR-AT).
  Decision holds_max_dest_rd_atomic{true};             // MR-RD-08
  Decision read_responses_start_at_request_psn{true};  // MR-RD-02
  Decision read_first_full_mtu{true};                  // MR-RD-01
  Decision read_middle_without_aeth{true};             // MR-RD-03
  Decision reads_beyond_64k{true};                     // MR-RD-15
  Decision compare_swap_compares{true};                // MR-AT-01
  Decision fetch_add_returns_original{true};           // MR-AT-02

  // ACKs (MR-AK).
  Decision uc_silent{true};                // MR-UC-01: a UC responder never acknowledges
  Decision acks_every_ackreq{true};        // MR-AK-01
  Decision ack_carries_request_psn{true};  // MR-AK-02
  Decision reports_true_msn{true};         // MR-AK-03
  Decision acks_plain{true};               // MR-AK-14: no Solicited, no AckReq

  // Duplicates and errors.
  Decision answers_duplicate_read{true};                // MR-RD-07
  Decision replays_saved_atomic{true};                  // MR-AT-04
  Decision executes_duplicate_write_once{true};         // MR-PS-07 MR-AK-11
  Decision duplicate_ack_carries_epsn_minus_one{true};  // MR-AK-11
  Decision one_nak_per_sequence_error{true};            // MR-PS-05
  Decision sequence_nak_carries_epsn{true};             // MR-PS-04
  Decision uc_silent_on_stray_middle{true};             // MR-UC-03: drop, no Error state
  Decision uc_silent_on_rkey_error{true};               // MR-UC-04 MR-UC-01

  static std::span<const DecisionRow<ResponderDecisions>> rows();
  bool operator==(const ResponderDecisions&) const = default;
};

}  // namespace mr::transport
