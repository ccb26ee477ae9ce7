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
//   FramingDecisions d = decide_from<FramingDecisions>(mutants);
#pragma once

#include <span>

#include "reference/mutants/mutant.h"

namespace mr::transport {

template <class Decisions>
struct DecisionRow {
  mutants::Mutant mutant;
  bool Decisions::*decision;
  bool when_mutated;  // the value the broken device decides
};

// The correct decisions (Decisions' member defaults) with every active mutant's row applied.
template <class Decisions>
Decisions decide_from(const mutants::MutantSet& mutants) {
  Decisions d;
  for (const auto& row : Decisions::rows()) {
    if (mutants.active(row.mutant)) d.*row.decision = row.when_mutated;
  }
  return d;
}

}  // namespace mr::transport
