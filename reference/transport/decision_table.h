// File: decision_table.h
//
// How a state machine's decisions are built from the mutants, once, when the device is
// made: each decisions type lists one row per mutant that names the decision it breaks and
// the value the broken device takes. The engines then read the decision (what a correct
// device does), never the mutant, so no per-packet branch names a fault.
//
// Every mutant has exactly one row in one table (transport_decisions_test checks it).
//
// Usage (decision_rows.cpp):
//   constexpr DecisionRow<FramingDecisions> kFramingRows[] = {
//       {Mutant::kVlanTagNotSent, &FramingDecisions::sends_vlan_tag, false}};
//   std::span<const DecisionRow<FramingDecisions>> FramingDecisions::rows() { return ...; }
//   FramingDecisions d = decide_from<FramingDecisions>(mutants, log);
#pragma once

#include <span>

#include "reference/mutants/mutant.h"
#include "reference/transport/decision.h"

namespace mr::transport {

template <class Decisions>
struct DecisionRow {
  mutants::Mutant mutant;
  Decision Decisions::*decision;
  bool when_mutated;  // the value the broken device decides
};

// The correct decisions (Decisions' member defaults) with every active mutant's row applied;
// with a log, each row's decision notes its reads there (decision.h).
template <class Decisions>
Decisions decide_from(const mutants::MutantSet& mutants, DecisionLog* log = nullptr) {
  Decisions d;
  for (const auto& row : Decisions::rows()) {
    Decision& decision = d.*row.decision;
    if (mutants.active(row.mutant)) decision.set(row.when_mutated);
    decision.log_reads(row.mutant, log);
  }
  return d;
}

}  // namespace mr::transport
