// File: congestion_decisions.h
//
// The decisions of DCQCN's notification and reaction points (MR-CC): how often a CNP goes out
// and what it carries, and how the reaction point takes the CNPs it receives.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct CongestionDecisions {
  Decision cnp_rate_limited{true};                // MR-CC-03
  Decision cnp_sets_becn{true};                   // MR-CC-01
  Decision ce_marked_cnp_unanswered{true};        // MR-CC-05
  Decision reaction_point_acts_on_cnp{true};      // MR-CC-07
  Decision reaction_point_acts_at_once{true};     // MR-CC-07
  Decision reaction_point_any_source_port{true};  // MR-CC-09
  Decision reaction_point_keeps_minimum{true};    // MR-CC-12
  Decision cnp_icrc_checked{true};                // MR-CC-13: a bad-ICRC CNP is dropped

  static std::span<const DecisionRow<CongestionDecisions>> rows();
  bool operator==(const CongestionDecisions&) const = default;
};

}  // namespace mr::transport
