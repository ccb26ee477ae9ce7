#include "reference/transport/step_trace.h"

#include <cstdio>

namespace mr::transport {

void StepTrace::record(std::string_view machine, std::string_view state, uint32_t psn) {
  ++recorded_;
  if (ring_.size() < capacity_) {
    ring_.push_back({machine, state, psn});
    return;
  }
  ring_[next_] = {machine, state, psn};
  next_ = (next_ + 1) % capacity_;
}

std::vector<Step> StepTrace::steps() const {
  std::vector<Step> out;
  out.reserve(ring_.size());
  for (size_t k = 0; k < ring_.size(); ++k) out.push_back(ring_[(next_ + k) % ring_.size()]);
  return out;
}

std::vector<std::string_view> StepTrace::states(std::string_view machine) const {
  std::vector<std::string_view> out;
  for (const Step& s : steps()) {
    if (s.machine == machine) out.push_back(s.state);
  }
  return out;
}

std::string StepTrace::text() const {
  std::string out;
  for (const Step& s : steps()) {
    char psn[16];
    std::snprintf(psn, sizeof psn, "0x%06x", s.psn);
    out.append(s.machine).append(" psn ").append(psn).append(" ").append(s.state) += '\n';
  }
  return out;
}

void StepTrace::clear() {
  ring_.clear();
  next_ = 0;
  recorded_ = 0;
}

}  // namespace mr::transport
