// File: decision.h
//
// One decision of the reference device that a mutant can break (decision_table.h): the value
// the engines read, and, when the device was given a DecisionLog, a note in it the first
// time the value is read. The log says which mutants' decisions a run consulted, so that
// `metaroce mutants` runs a mutant only against the test purposes that consult its decision
// on the correct reference: a run that never reads the decision goes the same way on both
// devices (the embedded DUT runs in virtual time and is deterministic), so it cannot kill
// the mutant. It is the coverage-based test selection of mutation tools such as PIT.
//
// Read a decision where it matters: `if (!icrc_ok && decide.receive.checks_icrc)` consults it
// only for a bad ICRC, where reading it first would consult it for every packet.
//
// Usage:
//   auto log = std::make_shared<DecisionLog>();
//   DeviceConfig config{.decision_log = log};  // the device's decisions note into it
//   ... run ...
//   log->consulted(Mutant::kIcrcNotChecked);
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <vector>

#include "reference/mutants/mutant.h"

namespace mr::transport {

// Which mutants' decisions were read. Shared by the devices of one run (a reset makes a new
// device); notes are atomic, as an agent's device may be read from more than one thread.
class DecisionLog {
 public:
  void note(mutants::Mutant m) {
    auto& seen = seen_[static_cast<size_t>(m)];
    if (!seen.load(std::memory_order_relaxed)) seen.store(true, std::memory_order_relaxed);
  }
  bool consulted(mutants::Mutant m) const {
    return seen_[static_cast<size_t>(m)].load(std::memory_order_relaxed);
  }
  std::vector<mutants::Mutant> consulted() const {
    std::vector<mutants::Mutant> out;
    for (size_t i = 0; i < seen_.size(); ++i) {
      if (seen_[i].load(std::memory_order_relaxed)) out.push_back(static_cast<mutants::Mutant>(i));
    }
    return out;
  }

 private:
  std::array<std::atomic<bool>, static_cast<size_t>(mutants::Mutant::kCount)> seen_{};
};

class Decision {
 public:
  constexpr explicit Decision(bool correct) : value_(correct) {}

  // The value; the first read notes the decision's mutant in the log, if there is one.
  operator bool() const {  // NOLINT(google-explicit-constructor): read as the bool it is
    if (log_ != nullptr) log_->note(mutant_);
    return value_;
  }
  void set(bool value) { value_ = value; }
  // Reads of this decision are noted as reads of `mutant`'s decision in `log`.
  void log_reads(mutants::Mutant mutant, DecisionLog* log) {
    mutant_ = mutant;
    log_ = log;
  }
  // Equal decisions have equal values; where their reads are noted does not count.
  bool operator==(const Decision& other) const { return value_ == other.value_; }

 private:
  bool value_;
  mutants::Mutant mutant_ = mutants::Mutant::kCount;
  DecisionLog* log_ = nullptr;
};

}  // namespace mr::transport
