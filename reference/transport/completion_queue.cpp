#include "reference/transport/completion_queue.h"

namespace mr::transport {

bool CompletionQueue::push(const Completion& c, EventFault fault) {
  if (entries_.size() >= depth_) {
    overflowed_ = true;
    return false;
  }
  entries_.push_back(c);
  // A CQ armed for solicited completions fires on a solicited receive or any error
  // (MR-CQ-04); armed for all, on any completion. Either way the arming is consumed.
  const bool fires = !solicited_only_ || c.solicited || c.status != WcStatus::kSuccess ||
                     fault == EventFault::kIgnoreSolicited;
  if (armed_ && fires && fault != EventFault::kNeverRaise) {
    armed_ = false;
    ++events_;
  }
  return true;
}

std::vector<Completion> CompletionQueue::poll(size_t max) {
  std::vector<Completion> out;
  while (!entries_.empty() && out.size() < max) {
    out.push_back(entries_.front());
    entries_.pop_front();
  }
  return out;
}

}  // namespace mr::transport
