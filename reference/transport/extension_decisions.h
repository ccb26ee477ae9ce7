// File: extension_decisions.h
//
// The decisions of extension mode (Part II) that a mutant can break: negotiation
// (MR-EX), the receiver's selective ACK (MR-SA) and out-of-order placement (MR-OO).
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

  static std::span<const DecisionRow<ExtensionDecisions>> rows();
  bool operator==(const ExtensionDecisions&) const = default;
};

}  // namespace mr::transport
