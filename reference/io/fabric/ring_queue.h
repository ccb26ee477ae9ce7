// File: ring_queue.h
//
// A FIFO of small values in a ring that doubles when full and never shrinks: std::deque
// frees and allocates blocks as it slides, which a per-packet path must not do.
#pragma once

#include <cstddef>
#include <vector>

namespace mr::io::fabric {

template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const T& front() const { return slots_[head_]; }
  void push_back(T value) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = value;
    ++size_;
  }
  T pop_front() {
    T value = slots_[head_];
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return value;
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;  // a power of two long
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace mr::io::fabric
