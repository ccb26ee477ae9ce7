// File: completion_queue.h
//
// A bounded completion queue. An overflow is an error of the CQ (IBTA 11.4.2.1, rxe's
// "Class G"): the completion is lost and the CQ reports the overflow.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "reference/transport/work_request.h"

namespace mr::transport {

// How a CQ raises completion events: correctly, or as one of the mutants of MR-CQ-04.
enum class EventFault { kNone, kIgnoreSolicited, kNeverRaise };

class CompletionQueue {
 public:
  explicit CompletionQueue(size_t depth) : depth_(depth) {}

  // False when the CQ is full (the completion is dropped and `overflowed()` turns true).
  bool push(const Completion& c, EventFault fault = EventFault::kNone);
  std::vector<Completion> poll(size_t max);
  size_t size() const { return entries_.size(); }
  bool overflowed() const { return overflowed_; }
  // Solicited-event arming (ibv_req_notify_cq): `events()` counts the notifications raised.
  void arm(bool solicited_only) {
    armed_ = true;
    solicited_only_ = solicited_only;
  }
  size_t events() const { return events_; }
  // The events raised since the last call (ibv_get_cq_event followed by ibv_ack_cq_events).
  size_t take_events() {
    const size_t n = events_ - taken_;
    taken_ = events_;
    return n;
  }

 private:
  size_t depth_;
  std::deque<Completion> entries_;
  bool overflowed_ = false;
  bool armed_ = false;
  bool solicited_only_ = false;
  size_t events_ = 0;
  size_t taken_ = 0;
};

}  // namespace mr::transport
