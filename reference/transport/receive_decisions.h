// File: receive_decisions.h
//
// The decisions of the device's receive pipeline (rxe's order: address, ICRC, ECN, TVer, QP,
// transport, state, VLAN priority, P_Key): what it checks and which packets it drops.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct ReceiveDecisions {
  Decision checks_icrc{true};              // MR-IC-02
  Decision keeps_ce_marked_packets{true};  // MR-IC-03: CE is not corruption
  Decision checks_bth_version{true};       // MR-WF-03
  Decision keeps_migreq_packets{true};     // MR-WF-14
  Decision checks_transport{true};         // MR-WF-12: an RC QP drops UC opcodes
  Decision rtr_refuses_responses{true};    // MR-QS-03
  Decision init_refuses_requests{true};    // MR-QS-01 (and no address gate before RTR)
  Decision error_state_silent{true};       // MR-QS-04
  Decision ignores_vlan_priority{true};    // MR-WF-17
  Decision checks_pkey{true};              // MR-QS-06

  static std::span<const DecisionRow<ReceiveDecisions>> rows();
  bool operator==(const ReceiveDecisions&) const = default;
};

}  // namespace mr::transport
