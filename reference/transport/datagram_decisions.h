// File: datagram_decisions.h
//
// The decisions the UD requester and responder make (MR-UD): Q_Keys, AckReq, the path MTU,
// the GRH area, the source QP and long messages.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct DatagramDecisions {
  Decision ackreq_clear{true};                   // MR-UD-01
  Decision refuses_larger_than_pmtu{true};       // MR-UD-01: a local length error, no packet
  Decision controlled_qkey_is_the_qps{true};     // MR-UD-05
  Decision checks_qkey{true};                    // MR-UD-02
  Decision fills_grh_area{true};                 // MR-UD-03
  Decision reports_source_qp{true};              // MR-UD-03
  Decision drops_message_longer_than_wqe{true};  // MR-UD-04: no truncation

  static std::span<const DecisionRow<DatagramDecisions>> rows();
  bool operator==(const DatagramDecisions&) const = default;
};

}  // namespace mr::transport
