// File: completer_decisions.h
//
// The decisions the completer makes on the responses it receives (MR-RT, MR-RN, MR-RD): retry
// and RNR budgets, the ACK timer, implicit NAKs, and where READ responses are placed.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct CompleterDecisions {
  bool honours_retry_count = true;              // MR-RT-06
  bool retry_count_seven_is_seven = true;       // MR-RT-07: 7 is not infinite
  bool resets_retry_budget_on_progress = true;  // MR-RT-06
  bool rearms_timer_on_progress = true;         // MR-RT-01
  bool implicit_nak_for_read = true;            // MR-RT-08
  bool one_retry_per_implicit_nak = true;       // MR-RT-08 MR-RT-06
  bool honours_rnr_retry = true;                // MR-RN-05
  bool resets_rnr_budget_on_progress = true;    // MR-RN-05
  bool honours_rnr_timer = true;                // MR-RN-03
  bool places_read_beyond_64k = true;           // MR-RD-14

  static std::span<const DecisionRow<CompleterDecisions>> rows();
  bool operator==(const CompleterDecisions&) const = default;
};

}  // namespace mr::transport
