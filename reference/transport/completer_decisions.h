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
  Decision honours_retry_count{true};              // MR-RT-06
  Decision retry_count_seven_is_seven{true};       // MR-RT-07: 7 is not infinite
  Decision resets_retry_budget_on_progress{true};  // MR-RT-06
  Decision rearms_timer_on_progress{true};         // MR-RT-01
  Decision implicit_nak_for_read{true};            // MR-RT-08
  Decision one_retry_per_implicit_nak{true};       // MR-RT-08 MR-RT-06
  Decision honours_rnr_retry{true};                // MR-RN-05
  Decision resets_rnr_budget_on_progress{true};    // MR-RN-05
  Decision honours_rnr_timer{true};                // MR-RN-03
  Decision places_read_beyond_64k{true};           // MR-RD-14

  static std::span<const DecisionRow<CompleterDecisions>> rows();
  bool operator==(const CompleterDecisions&) const = default;
};

}  // namespace mr::transport
