// File: ev_table.cpp
#include "reference/transport/ext/ev_table.h"

#include <algorithm>
#include <set>

namespace mr::transport::ext {

std::string_view to_string(EvState s) {
  switch (s) {
    case EvState::kGood:
      return "GOOD";
    case EvState::kAssumedBad:
      return "ASSUMED_BAD";
    case EvState::kDenied:
      return "DENIED";
  }
  return "GOOD";
}

Expected<EvTable, std::string> EvTable::create(std::vector<EvEntry> set,
                                               PathFailureParameters parameters) {
  if (set.empty() || set.size() > kMaxEntries)
    return Unexpected("ev_set: " + std::to_string(set.size()) + " entries; give 1 to " +
                      std::to_string(kMaxEntries));
  std::set<uint16_t> seen;
  std::vector<Slot> slots;
  slots.reserve(set.size());
  for (size_t i = 0; i < set.size(); ++i) {
    const std::string where = "ev_set[" + std::to_string(i) + "]";
    if (set[i].ev == 0) return Unexpected(where + ".ev: 0 is not an entropy value");
    if (set[i].plane >= kMaxPlanes)
      return Unexpected(where + ".plane: " + std::to_string(set[i].plane) + "; planes are 0 to 15");
    if (!seen.insert(set[i].ev).second)
      return Unexpected(where + ".ev: " + std::to_string(set[i].ev) + " is listed twice");
    slots.push_back(Slot{.entry = set[i]});
  }
  return EvTable(std::move(slots), parameters);
}

std::vector<EvEntry> EvTable::default_set(uint32_t qpn, unsigned planes, unsigned count) {
  std::vector<EvEntry> set;
  set.reserve(count);
  planes = std::clamp(planes, 1U, kMaxPlanes);
  for (unsigned i = 0; i < count; ++i) {
    set.push_back({.ev = static_cast<uint16_t>(0xC000 | ((16 * qpn + i) % (1U << 14))),
                   .plane = static_cast<uint8_t>(i % planes)});
  }
  return set;
}

std::optional<size_t> EvTable::find(uint16_t ev) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].entry.ev == ev) return i;
  }
  return std::nullopt;
}

size_t EvTable::good_count() const {
  return static_cast<size_t>(std::count_if(
      entries_.begin(), entries_.end(), [](const Slot& s) { return s.state == EvState::kGood; }));
}

void EvTable::forget_before(std::vector<uint64_t>& times, uint64_t now_ns, uint64_t window_ns) {
  const auto kept =
      std::find_if(times.begin(), times.end(), [&](uint64_t t) { return now_ns - t <= window_ns; });
  times.erase(times.begin(), kept);
}

bool EvTable::damped(size_t i, uint64_t now_ns) const {
  const Slot& s = entries_[i];
  const auto recent = std::count_if(s.failures.begin(), s.failures.end(), [&](uint64_t t) {
    return now_ns - t <= parameters_.flap_window_ns;
  });
  return static_cast<uint32_t>(recent) >= parameters_.flap_max;
}

bool EvTable::usable(size_t i, uint64_t now_ns) const {
  const Slot& s = entries_[i];
  const Port& port = ports_[s.entry.plane];
  return (s.state == EvState::kGood || s.drawn_while_denied) && port.up &&
         now_ns >= port.usable_from_ns;
}

bool EvTable::assume_bad(size_t i, uint64_t now_ns) {
  Slot& s = entries_[i];
  if (s.state != EvState::kGood || good_count() <= parameters_.min_active) return false;
  s.state = EvState::kAssumedBad;
  ++assumed_bad_;
  s.entered_bad_ns = now_ns;
  s.probe_interval_ns = parameters_.probe_interval_ns;
  s.next_probe_ns = now_ns + s.probe_interval_ns;
  s.failures.push_back(now_ns);
  forget_before(s.failures, now_ns, parameters_.flap_window_ns);
  const bool now_damped = damped(i, now_ns);
  if (now_damped && !s.was_damped) count(&EvCounters::ev_damped);
  s.was_damped = now_damped;
  return true;
}

void EvTable::return_to_good(size_t i) {
  Slot& s = entries_[i];
  s.state = EvState::kGood;
  --assumed_bad_;
  s.ack_losses.clear();  // a return to GOOD clears its ACK-path count
}

// When an ASSUMED_BAD entry may be GOOD again: a damped one T_PF_FLAP_HOLD after it last
// entered ASSUMED_BAD; without PATHPROBE, T_EV_HOLDDOWN (or the larger of the two).
uint64_t EvTable::hold_until(size_t i, uint64_t now_ns) const {
  const uint64_t flap = damped(i, now_ns) ? parameters_.flap_hold_ns : 0;
  const uint64_t hold = parameters_.path_probe ? flap : std::max(parameters_.holddown_ns, flap);
  return entries_[i].entered_bad_ns + hold;
}

bool EvTable::on_rto(size_t i, uint64_t now_ns) {
  if (!assume_bad(i, now_ns)) return false;
  count(&EvCounters::ev_assumed_bad);
  return true;
}

void EvTable::on_ack_path_loss(size_t i, uint64_t now_ns) {
  Slot& s = entries_[i];
  s.ack_losses.push_back(now_ns);
  forget_before(s.ack_losses, now_ns, parameters_.ack_loss_window_ns);
  if (s.ack_losses.size() >= parameters_.ack_losses && assume_bad(i, now_ns))
    count(&EvCounters::ev_ack_path_bad);
}

void EvTable::on_probe_answer(size_t i, uint64_t now_ns) {
  if (entries_[i].state != EvState::kAssumedBad || now_ns < hold_until(i, now_ns)) return;
  return_to_good(i);
  count(&EvCounters::ev_good);  // a probe's answer only: a hold-down's end raises no event
}

void EvTable::on_spurious_rto(size_t i) {
  if (entries_[i].state != EvState::kAssumedBad) return;
  return_to_good(i);
  count(&EvCounters::ev_spurious_rto);
}

void EvTable::deny(size_t i, bool stop_using) {
  if (entries_[i].state == EvState::kAssumedBad) --assumed_bad_;
  entries_[i].state = EvState::kDenied;
  entries_[i].drawn_while_denied = !stop_using;
}

void EvTable::allow(size_t i) {
  if (entries_[i].state == EvState::kDenied) entries_[i].state = EvState::kGood;
  entries_[i].drawn_while_denied = false;
}

void EvTable::port_down(unsigned plane, uint64_t now_ns) {
  if (plane >= kMaxPlanes) return;
  Port& p = ports_[plane];
  if (!p.up) return;
  p.up = false;
  p.downs.push_back(now_ns);
  forget_before(p.downs, now_ns, parameters_.flap_window_ns);
}

void EvTable::port_up(unsigned plane, uint64_t now_ns, bool hold) {
  if (plane >= kMaxPlanes) return;
  Port& p = ports_[plane];
  if (p.up) return;
  p.up = true;
  forget_before(p.downs, now_ns, parameters_.flap_window_ns);
  const bool flapping = p.downs.size() >= parameters_.flap_max;
  const uint64_t hold_ns = flapping ? parameters_.flap_hold_ns : parameters_.port_up_hold_ns;
  p.usable_from_ns = now_ns + (hold ? hold_ns : 0);
}

std::optional<uint64_t> EvTable::next_due_ns() const {
  if (assumed_bad_ == 0) return std::nullopt;
  std::optional<uint64_t> next;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Slot& s = entries_[i];
    if (s.state != EvState::kAssumedBad) continue;
    // Without PATHPROBE, the end of its hold-down: damping only shortens as failures leave
    // the flap window, so at this time due_probes() certainly returns it to GOOD.
    const uint64_t due = parameters_.path_probe ? s.next_probe_ns : hold_until(i, s.entered_bad_ns);
    next = next ? std::min(*next, due) : due;
  }
  return next;
}

std::vector<size_t> EvTable::due_probes(uint64_t now_ns) {
  std::vector<size_t> due;
  for (size_t i = 0; i < entries_.size(); ++i) {
    Slot& s = entries_[i];
    if (s.state != EvState::kAssumedBad) continue;
    if (!parameters_.path_probe) {
      if (now_ns >= hold_until(i, now_ns)) return_to_good(i);
      continue;
    }
    if (now_ns < s.next_probe_ns) continue;
    // MR-PF-07, MR-PF-16: nothing leaves on a plane whose port is down or in its hold; the
    // probe waits its next interval.
    const Port& port = ports_[s.entry.plane];
    if (port.up && now_ns >= port.usable_from_ns) due.push_back(i);
    s.probe_interval_ns = std::min(parameters_.probe_interval_max_ns, 2 * s.probe_interval_ns);
    s.next_probe_ns = now_ns + s.probe_interval_ns;
  }
  return due;
}

}  // namespace mr::transport::ext
