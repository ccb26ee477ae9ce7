// File: step_trace.h
//
// The states the requester, responder and completer step through, one entry per step of
// their driver loops (what rxe prints with pr_debug per state), for tests and debugging. A
// device records only when given a trace: the engines test one pointer per step.
//
// Usage:
//   StepTrace trace;
//   device.set_step_trace(&trace);
//   ... traffic ...
//   trace.states("responder");  // {"CheckPsn", "CheckOpSequence", ..., "Acknowledge"}
//   trace.text();               // "responder psn 0x000100 CheckPsn\n..."
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mr::transport {

struct Step {
  std::string_view machine;  // "requester", "responder", "completer": static strings
  std::string_view state;    // the state's name, as the engine's enum spells it
  uint32_t psn = 0;          // the packet's PSN (the requester: its next PSN)
};

class StepTrace {
 public:
  // Keeps the newest `capacity` steps, so a long run cannot grow it without bound.
  explicit StepTrace(size_t capacity = 4096) : capacity_(capacity == 0 ? 1 : capacity) {}

  void record(std::string_view machine, std::string_view state, uint32_t psn);
  std::vector<Step> steps() const;  // oldest first
  std::vector<std::string_view> states(std::string_view machine) const;
  std::string text() const;                        // one line per step
  uint64_t recorded() const { return recorded_; }  // all steps, also the ones dropped
  void clear();

 private:
  size_t capacity_;
  std::vector<Step> ring_;
  size_t next_ = 0;  // where the next step goes once the ring is full
  uint64_t recorded_ = 0;
};

}  // namespace mr::transport
