#include "reference/io/fabric/event_queue.h"

#include <algorithm>
#include <bit>

namespace mr::io::fabric {
namespace {

// Ascending (time, sequence).
struct Earlier {
  bool operator()(const Event& a, const Event& b) const {
    if (a.time_ps != b.time_ps) return a.time_ps < b.time_ps;
    return a.sequence < b.sequence;
  }
};
// std::push_heap keeps the largest first: for the overflow heap "later" compares smaller.
struct Later {
  bool operator()(const Event& a, const Event& b) const { return Earlier{}(b, a); }
};

constexpr uint64_t kBucketMask = (uint64_t{1} << EventQueue::kBucketBits) - 1;

}  // namespace

EventQueue::EventQueue() : heads_(kBuckets, kNone), occupied_(kBuckets / 64) {}

void EventQueue::set_occupied(size_t bucket) {
  occupied_[bucket / 64] |= uint64_t{1} << (bucket % 64);
}
void EventQueue::clear_occupied(size_t bucket) {
  occupied_[bucket / 64] &= ~(uint64_t{1} << (bucket % 64));
}

size_t EventQueue::next_occupied(size_t from) const {
  for (size_t word = from / 64; word < occupied_.size(); ++word) {
    uint64_t bits = occupied_[word];
    if (word == from / 64) bits &= ~uint64_t{0} << (from % 64);
    if (bits != 0) return word * 64 + static_cast<size_t>(std::countr_zero(bits));
  }
  return kBuckets;
}

void EventQueue::place(const Event& e) {
  if (e.time_ps >= epoch_ps_ + kHorizonPs) {
    overflow_.push_back(e);
    std::push_heap(overflow_.begin(), overflow_.end(), Later{});
    return;
  }
  const size_t b = (e.time_ps - epoch_ps_) >> kBucketBits;
  if (b == cursor_ && loaded_) {
    // The bucket being read stays in order; the newest sequence goes after equal times.
    current_.insert(std::upper_bound(current_.begin() + static_cast<std::ptrdiff_t>(head_),
                                     current_.end(), e, Earlier{}),
                    e);
    return;
  }
  uint32_t node = 0;
  if (free_nodes_.empty()) {
    node = static_cast<uint32_t>(nodes_.size());
    nodes_.emplace_back();
  } else {
    node = free_nodes_.back();
    free_nodes_.pop_back();
  }
  nodes_[node] = Node{e, heads_[b]};
  heads_[b] = node;
  set_occupied(b);
}

void EventQueue::push(Event event) {
  event.sequence = next_sequence_++;
  ++size_;
  // Earlier than the wheel has got to (a driver looked ahead with top(), then scheduled
  // something sooner): move everything back into the heap and start the wheel there.
  if (event.time_ps < epoch_ps_ || (event.time_ps < epoch_ps_ + kHorizonPs &&
                                    ((event.time_ps - epoch_ps_) >> kBucketBits) < cursor_)) {
    overflow_.push_back(event);
    std::push_heap(overflow_.begin(), overflow_.end(), Later{});
    start_epoch(event.time_ps & ~kBucketMask);
    return;
  }
  place(event);
}

void EventQueue::load(size_t bucket) {
  current_.clear();
  head_ = 0;
  for (uint32_t n = heads_[bucket]; n != kNone;) {
    current_.push_back(nodes_[n].event);
    free_nodes_.push_back(n);
    n = nodes_[n].next;
  }
  heads_[bucket] = kNone;
  std::sort(current_.begin(), current_.end(), Earlier{});
  cursor_ = bucket;
  loaded_ = true;
}

// Moves the wheel's events to the heap, then refills the wheel from `start_ps` on.
void EventQueue::start_epoch(uint64_t start_ps) {
  auto to_heap = [this](const Event& e) {
    overflow_.push_back(e);
    std::push_heap(overflow_.begin(), overflow_.end(), Later{});
  };
  if (loaded_) {
    for (size_t i = head_; i < current_.size(); ++i) to_heap(current_[i]);
  }
  for (size_t b = next_occupied(0); b < kBuckets; b = next_occupied(b + 1)) {
    for (uint32_t n = heads_[b]; n != kNone; n = nodes_[n].next) {
      to_heap(nodes_[n].event);
      free_nodes_.push_back(n);
    }
    heads_[b] = kNone;
    clear_occupied(b);
  }
  current_.clear();
  head_ = 0;
  loaded_ = false;
  epoch_ps_ = start_ps;
  cursor_ = 0;
  while (!overflow_.empty() && overflow_.front().time_ps < epoch_ps_ + kHorizonPs) {
    std::pop_heap(overflow_.begin(), overflow_.end(), Later{});
    const Event e = overflow_.back();
    overflow_.pop_back();
    place(e);
  }
}

void EventQueue::settle() {
  // Bounded: each pass returns, loads a later bucket, or starts a later epoch (which
  // brings at least the heap's earliest event into the wheel).
  while (true) {
    if (loaded_) {
      if (head_ < current_.size()) return;
      loaded_ = false;
      current_.clear();
      head_ = 0;
      clear_occupied(cursor_);
    }
    const size_t next = next_occupied(cursor_);
    if (next < kBuckets) {
      load(next);
      continue;
    }
    start_epoch(overflow_.front().time_ps & ~kBucketMask);
  }
}

const Event& EventQueue::top() {
  settle();
  return current_[head_];
}

Event EventQueue::pop() {
  settle();
  --size_;
  return current_[head_++];
}

}  // namespace mr::io::fabric
