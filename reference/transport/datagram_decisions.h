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
  bool ackreq_clear = true;                   // MR-UD-01
  bool refuses_larger_than_pmtu = true;       // MR-UD-01: a local length error, no packet
  bool controlled_qkey_is_the_qps = true;     // MR-UD-05
  bool checks_qkey = true;                    // MR-UD-02
  bool fills_grh_area = true;                 // MR-UD-03
  bool reports_source_qp = true;              // MR-UD-03
  bool drops_message_longer_than_wqe = true;  // MR-UD-04: no truncation

  static std::span<const DecisionRow<DatagramDecisions>> rows();
  bool operator==(const DatagramDecisions&) const = default;
};

}  // namespace mr::transport
