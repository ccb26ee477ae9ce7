// File: decision_table.h
//
// How a state machine's decisions are built from the mutants, once, when the device is
// made: each decisions type lists one row per mutant that names the decision it breaks and
// the value the broken device takes. The engines then read the decision (what a correct
// device does), never the mutant, so no per-packet branch names a fault.
//
// Usage (in framing_decisions.cpp):
//   constexpr DecisionRow<FramingDecisions> kRows[] = {
//       {Mutant::kVlanTagNotSent, &FramingDecisions::sends_vlan_tag, false}};
//   FramingDecisions d = decide_from(mutants, std::span(kRows));
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
Decisions decide_from(const mutants::MutantSet& mutants,
                      std::span<const DecisionRow<Decisions>> rows) {
  Decisions d;
  for (const auto& row : rows) {
    if (mutants.active(row.mutant)) d.*row.decision = row.when_mutated;
  }
  return d;
}

}  // namespace mr::transport
