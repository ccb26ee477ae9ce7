#include "reference/io/memory_link.h"

#include <algorithm>
#include <chrono>

namespace mr::io {

MemoryLinkPair::MemoryLinkPair(const Clock& clock, MemoryLinkOptions options)
    : a_to_b_(clock, options),
      b_to_a_(clock, options),
      a_("memory:a", a_to_b_, b_to_a_),
      b_("memory:b", b_to_a_, a_to_b_) {}

void MemoryLinkPair::set_impairment(Direction direction, ImpairmentPolicy policy) {
  channel(direction).set_impairment(std::move(policy));
}

void MemoryLinkPair::clear_impairment(Direction direction) {
  channel(direction).set_impairment(std::nullopt);
}

const ImpairmentPolicy* MemoryLinkPair::impairment(Direction direction) const {
  return channel(direction).impairment();
}

std::optional<uint64_t> MemoryLinkPair::next_delivery_ns() const {
  const auto x = a_to_b_.next_delivery_ns();
  const auto y = b_to_a_.next_delivery_ns();
  if (x && y) return std::min(*x, *y);
  return x ? x : y;
}

MemoryLinkCounters MemoryLinkPair::counters(Direction direction) const {
  return channel(direction).counters();
}

void MemoryLinkPair::release_held() {
  a_to_b_.release_held();
  b_to_a_.release_held();
}

void MemoryLinkPair::Channel::enqueue(Frame frame, uint64_t arrival_ns) {
  if (queue_.size() >= options_.capacity) {
    ++counters_.overflow_drops;
    return;
  }
  // Usually the newest arrival: search from the back, and insert after equal times so
  // that frames sent together keep their order.
  auto it = queue_.end();
  while (it != queue_.begin() && std::prev(it)->arrival_ns > arrival_ns) --it;
  queue_.insert(it, Pending{std::move(frame), arrival_ns});
}

size_t MemoryLinkPair::Channel::send(std::span<const Frame> frames) {
  {
    std::lock_guard lock(mutex_);
    const uint64_t now = clock_.now_ns();
    for (const Frame& f : frames) {
      ++counters_.sent;
      Frame copy{f.bytes, now};
      const uint64_t arrival = now + options_.latency_ns;
      if (!impairment_) {
        enqueue(std::move(copy), arrival);
        continue;
      }
      impaired_.clear();
      impairment_->apply(std::move(copy), impaired_);
      for (ImpairedFrame& out : impaired_) {
        enqueue(std::move(out.frame), arrival + out.extra_delay_ns);
      }
    }
  }
  arrived_.notify_all();
  return frames.size();
}

size_t MemoryLinkPair::Channel::take_due(std::span<Frame> out, uint64_t now_ns) {
  size_t n = 0;
  while (n < out.size() && !queue_.empty() && queue_.front().arrival_ns <= now_ns) {
    Pending& p = queue_.front();
    out[n] = std::move(p.frame);
    out[n].timestamp_ns = p.arrival_ns;
    queue_.pop_front();
    ++n;
  }
  counters_.delivered += n;
  return n;
}

size_t MemoryLinkPair::Channel::receive(std::span<Frame> out, uint64_t timeout_ns) {
  std::unique_lock lock(mutex_);
  const uint64_t start = clock_.now_ns();
  size_t n = take_due(out, start);
  if (n > 0 || timeout_ns == 0 || out.empty() || clock_.is_virtual()) return n;
  const uint64_t deadline = start + timeout_ns;
  while (true) {
    const uint64_t now = clock_.now_ns();
    n = take_due(out, now);
    if (n > 0 || now >= deadline) return n;
    uint64_t wake = deadline;
    if (!queue_.empty()) wake = std::min(wake, queue_.front().arrival_ns);
    arrived_.wait_for(lock, std::chrono::nanoseconds(wake - now));
  }
}

std::optional<uint64_t> MemoryLinkPair::Channel::next_delivery_ns() const {
  std::lock_guard lock(mutex_);
  if (queue_.empty()) return std::nullopt;
  return queue_.front().arrival_ns;
}

void MemoryLinkPair::Channel::set_impairment(std::optional<ImpairmentPolicy> policy) {
  std::lock_guard lock(mutex_);
  impairment_ = std::move(policy);
}

const ImpairmentPolicy* MemoryLinkPair::Channel::impairment() const {
  std::lock_guard lock(mutex_);
  return impairment_ ? &*impairment_ : nullptr;
}

MemoryLinkCounters MemoryLinkPair::Channel::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

void MemoryLinkPair::Channel::release_held() {
  {
    std::lock_guard lock(mutex_);
    if (!impairment_) return;
    if (auto held = impairment_->release_held()) {
      enqueue(std::move(*held), clock_.now_ns() + options_.latency_ns);
    }
  }
  arrived_.notify_all();
}

}  // namespace mr::io
