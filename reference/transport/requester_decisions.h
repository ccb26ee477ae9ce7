// File: requester_decisions.h
//
// The decisions the RC and UC requester makes (MR-PS, MR-AK, MR-RT, MR-MP, MR-CQ, MR-UC):
// which PSNs a message takes, when AckReq and Solicited are set, how it retransmits.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct RequesterDecisions {
  Decision bounds_unacked_psns{true};             // MR-PS-11: a window of unacknowledged PSNs
  Decision read_takes_psn_per_response{true};     // MR-PS-02
  Decision ackreq_on_last{true};                  // MR-AK-05
  Decision ackreq_periodic{true};                 // MR-AK-06
  Decision solicited_only_on_last{true};          // MR-CQ-01
  Decision uc_sends_uc_opcodes{true};             // MR-UC-05
  Decision gathers_beyond_64k{true};              // MR-MP-15: SEND and WRITE gather
  Decision waits_full_timeout{true};              // MR-RT-01: no retransmission before it
  Decision timeout_zero_never_retransmits{true};  // MR-RT-03
  Decision read_retry_after_received{true};       // MR-RT-05: not from the message start
  Decision rewinds_later_wqes{true};              // MR-AK-09

  static std::span<const DecisionRow<RequesterDecisions>> rows();
  bool operator==(const RequesterDecisions&) const = default;
};

}  // namespace mr::transport
