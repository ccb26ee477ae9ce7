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
  bool bounds_unacked_psns = true;             // MR-PS-11: a window of unacknowledged PSNs
  bool read_takes_psn_per_response = true;     // MR-PS-02
  bool ackreq_on_last = true;                  // MR-AK-05
  bool ackreq_periodic = true;                 // MR-AK-06
  bool solicited_only_on_last = true;          // MR-CQ-01
  bool uc_sends_uc_opcodes = true;             // MR-UC-05
  bool gathers_beyond_64k = true;              // MR-MP-15: SEND and WRITE gather
  bool waits_full_timeout = true;              // MR-RT-01: no retransmission before it
  bool timeout_zero_never_retransmits = true;  // MR-RT-03
  bool read_retry_after_received = true;       // MR-RT-05: not from the message start
  bool rewinds_later_wqes = true;              // MR-AK-09

  static std::span<const DecisionRow<RequesterDecisions>> rows();
  bool operator==(const RequesterDecisions&) const = default;
};

}  // namespace mr::transport
