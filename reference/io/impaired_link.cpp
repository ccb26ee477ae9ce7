#include "reference/io/impaired_link.h"

#include <algorithm>
#include <limits>

namespace mr::io {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr size_t kMinReceiveBurst = 32;

}  // namespace

std::string_view link_direction_name(LinkDirection d) {
  return d == LinkDirection::kSend ? "send" : "receive";
}

ImpairedLink::ImpairedLink(Link& inner, const Clock& clock, ImpairmentPolicy send_policy,
                           ImpairmentPolicy receive_policy, ImpairedLinkOptions options)
    : inner_(inner),
      clock_(clock),
      options_(options),
      send_(std::move(send_policy)),
      receive_(std::move(receive_policy)) {}

void ImpairedLink::log(LinkDirection d, uint64_t index, ImpairmentAction action, uint64_t now) {
  std::lock_guard lock(log_mutex_);
  if (events_.size() < options_.max_events) {
    events_.push_back({.direction = d, .index = index, .action = action, .time_ns = now});
  } else {
    ++events_omitted_;
  }
}

void ImpairedLink::impair(Side& side, LinkDirection d, Frame frame, uint64_t now,
                          std::vector<Frame>& now_out) {
  const ImpairmentCounters before = side.policy.counters();
  std::vector<ImpairedFrame> passed;
  side.policy.apply(std::move(frame), passed);
  const ImpairmentAction action = side.policy.last_action();
  if (action != ImpairmentAction::kPass) log(d, before.frames, action, now);
  if (action == ImpairmentAction::kReorder) {
    side.holding = true;
    side.held_since_ns = now;
  } else {
    side.holding = false;  // any other action releases what the policy held
  }
  for (auto& f : passed) {
    if (f.extra_delay_ns == 0) {
      now_out.push_back(std::move(f.frame));
    } else {
      side.delayed.push_back({.due_ns = now + f.extra_delay_ns, .frame = std::move(f.frame)});
    }
  }
}

void ImpairedLink::release_due(Side& side, uint64_t now, std::vector<Frame>& out) const {
  if (side.holding && now - side.held_since_ns >= options_.max_hold_ns) {
    if (auto held = side.policy.release_held()) out.push_back(std::move(*held));
    side.holding = false;
  }
  if (side.delayed.empty()) return;
  // Stable: frames delayed by the same amount keep their order.
  std::stable_sort(side.delayed.begin(), side.delayed.end(),
                   [](const Due& a, const Due& b) { return a.due_ns < b.due_ns; });
  size_t n = 0;
  while (n < side.delayed.size() && side.delayed[n].due_ns <= now) {
    out.push_back(std::move(side.delayed[n].frame));
    ++n;
  }
  side.delayed.erase(side.delayed.begin(), side.delayed.begin() + static_cast<ptrdiff_t>(n));
}

uint64_t ImpairedLink::next_due_ns(const Side& side) const {
  uint64_t due = side.holding ? side.held_since_ns + options_.max_hold_ns : kNever;
  for (const Due& d : side.delayed) due = std::min(due, d.due_ns);
  return due;
}

size_t ImpairedLink::send_burst(std::span<const Frame> frames) {
  std::lock_guard lock(send_mutex_);
  const uint64_t now = clock_.now_ns();
  std::vector<Frame> out;
  release_due(send_, now, out);  // what was due goes first: it was sent earlier
  for (const Frame& f : frames) impair(send_, LinkDirection::kSend, f, now, out);
  if (!out.empty()) inner_.send_burst(out);
  return frames.size();
}

void ImpairedLink::flush_send_due() {
  std::lock_guard lock(send_mutex_);
  std::vector<Frame> out;
  release_due(send_, clock_.now_ns(), out);
  if (!out.empty()) inner_.send_burst(out);
}

size_t ImpairedLink::receive_burst(std::span<Frame> out, uint64_t timeout_ns) {
  flush_send_due();
  std::lock_guard lock(receive_mutex_);
  if (out.empty()) return 0;
  const uint64_t start = clock_.now_ns();
  std::vector<Frame> passed;
  release_due(receive_, start, passed);
  for (auto& f : passed) ready_.push_back(std::move(f));
  if (ready_.empty()) {
    // Wait no longer than until a held or delayed frame falls due.
    const uint64_t due = next_due_ns(receive_);
    const uint64_t wait =
        due == kNever ? timeout_ns : std::min(timeout_ns, due - std::min(due, start));
    scratch_.resize(std::max(out.size(), kMinReceiveBurst));
    const size_t n = inner_.receive_burst(scratch_, wait);
    const uint64_t now = clock_.now_ns();
    passed.clear();
    for (size_t i = 0; i < n; ++i) {
      impair(receive_, LinkDirection::kReceive, std::move(scratch_[i]), now, passed);
    }
    release_due(receive_, now, passed);
    for (auto& f : passed) ready_.push_back(std::move(f));
  }
  const size_t moved = std::min(out.size(), ready_.size());
  for (size_t i = 0; i < moved; ++i) {
    out[i] = std::move(ready_.front());
    ready_.pop_front();
  }
  return moved;
}

ImpairmentCounters ImpairedLink::counters(LinkDirection d) const {
  if (d == LinkDirection::kSend) {
    std::lock_guard lock(send_mutex_);
    return send_.policy.counters();
  }
  std::lock_guard lock(receive_mutex_);
  return receive_.policy.counters();
}

std::vector<ImpairmentEvent> ImpairedLink::events() const {
  std::lock_guard lock(log_mutex_);
  return events_;
}

uint64_t ImpairedLink::events_omitted() const {
  std::lock_guard lock(log_mutex_);
  return events_omitted_;
}

}  // namespace mr::io
