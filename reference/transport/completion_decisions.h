// File: completion_decisions.h
//
// The decisions about completions and their events (MR-CQ, MR-QS-04/09): whether a CQ raises
// events and honours Solicited, the immediate's byte order, and the flush on Error.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct CompletionDecisions {
  Decision raises_completion_events{true};  // MR-CQ-04
  Decision honours_solicited_event{true};   // MR-CQ-04
  Decision immediate_in_host_order{true};   // MR-CQ-02
  Decision flushes_on_error{true};          // MR-QS-04, MR-QS-09

  static std::span<const DecisionRow<CompletionDecisions>> rows();
  bool operator==(const CompletionDecisions&) const = default;
};

}  // namespace mr::transport
