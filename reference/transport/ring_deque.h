// File: ring_deque.h
//
// A double-ended queue in one ring buffer: a QP's send queue, receive queue and responder
// resources, an Ext QP's retransmissions. std::deque allocates a map and a ~500-byte node
// even while empty, and a QP has several: with 10,000 QPs that was most of a QP's heap and
// the cache misses of touching it. A RingDeque allocates nothing until its first push, keeps
// its elements in one block (capacity a power of two, doubled when full, never shrunk), and
// indexes from its front.
//
// Unlike std::deque, a push that grows the ring moves every element: references and
// iterators into it are invalidated by any push, as with std::vector. Pushing a copy of one
// of its own elements is safe (the new element is built before the old buffer goes).
//
//   RingDeque<SendWqe> sq;
//   sq.push_back(w);           // the first push allocates
//   SendWqe& oldest = sq[0];   // sq.front()
//   sq.pop_front();
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace mr::transport {

template <typename T>
class RingDeque {
  template <typename Ring, typename Value>
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::remove_const_t<Value>;
    using difference_type = std::ptrdiff_t;
    using pointer = Value*;
    using reference = Value&;

    Iterator() = default;
    Iterator(Ring* ring, size_t index) : ring_(ring), index_(index) {}
    // An iterator converts to a const_iterator.
    operator Iterator<const Ring, const Value>() const { return {ring_, index_}; }

    reference operator*() const { return (*ring_)[index_]; }
    pointer operator->() const { return &(*ring_)[index_]; }
    reference operator[](difference_type n) const { return (*ring_)[index_ + n]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) { return {ring_, index_++}; }
    Iterator& operator--() {
      --index_;
      return *this;
    }
    Iterator operator--(int) { return {ring_, index_--}; }
    Iterator& operator+=(difference_type n) {
      index_ += n;
      return *this;
    }
    Iterator& operator-=(difference_type n) {
      index_ -= n;
      return *this;
    }
    friend Iterator operator+(Iterator i, difference_type n) { return i += n; }
    friend Iterator operator+(difference_type n, Iterator i) { return i += n; }
    friend Iterator operator-(Iterator i, difference_type n) { return i -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.index_ == b.index_; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.index_ <=> b.index_; }

   private:
    Ring* ring_ = nullptr;
    size_t index_ = 0;
  };

 public:
  using value_type = T;
  using size_type = size_t;
  using reference = T&;
  using const_reference = const T&;
  using iterator = Iterator<RingDeque, T>;
  using const_iterator = Iterator<const RingDeque, const T>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  RingDeque() = default;
  RingDeque(const RingDeque& other) { *this = other; }
  RingDeque(RingDeque&& other) noexcept { swap(other); }
  RingDeque& operator=(const RingDeque& other) {
    if (this == &other) return *this;
    clear();
    for (const T& v : other) push_back(v);
    return *this;
  }
  RingDeque& operator=(RingDeque&& other) noexcept {
    RingDeque moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~RingDeque() { clear(); }

  void swap(RingDeque& other) noexcept {
    std::swap(slots_, other.slots_);
    std::swap(capacity_, other.capacity_);
    std::swap(head_, other.head_);
    std::swap(size_, other.size_);
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Elements the ring holds before it grows again (0 before the first push).
  size_t capacity() const { return capacity_; }
  size_t heap_bytes() const { return capacity_ * sizeof(T); }

  T& operator[](size_t i) { return *slot(i); }
  const T& operator[](size_t i) const { return *slot(i); }
  T& front() { return *slot(0); }
  const T& front() const { return *slot(0); }
  T& back() { return *slot(size_ - 1); }
  const T& back() const { return *slot(size_ - 1); }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) {  // args may name an element: build before the old buffer goes
      Buffer grown = allocate(grown_capacity());
      T* p = std::construct_at(grown.get() + size_, std::forward<Args>(args)...);
      adopt(std::move(grown));
      ++size_;
      return *p;
    }
    T* p = std::construct_at(slot(size_), std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void push_front(T v) {  // by value: v is no element of the ring once it grows
    if (size_ == capacity_) adopt(allocate(grown_capacity()));
    const size_t head = (head_ + capacity_ - 1) & (capacity_ - 1);
    std::construct_at(slots_.get() + head, std::move(v));
    head_ = head;
    ++size_;
  }
  void pop_front() {
    std::destroy_at(slot(0));
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }
  void pop_back() {
    std::destroy_at(slot(size_ - 1));
    --size_;
  }
  // Destroys every element and keeps the buffer.
  void clear() {
    while (size_ > 0) pop_back();
    head_ = 0;
  }

  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

 private:
  // Raw storage: elements are constructed and destroyed one by one.
  struct Slots {
    void operator()(T* p) const { std::allocator<T>().deallocate(p, capacity); }
    size_t capacity = 0;
  };

  using Buffer = std::unique_ptr<T, Slots>;
  // Growth moves elements one by one and cannot undo a move that throws halfway.
  static_assert(std::is_nothrow_move_constructible_v<T>);

  T* slot(size_t i) const { return slots_.get() + ((head_ + i) & (capacity_ - 1)); }
  size_t grown_capacity() const { return capacity_ == 0 ? kFirstCapacity : capacity_ * 2; }
  static Buffer allocate(size_t capacity) {
    return Buffer(std::allocator<T>().allocate(capacity), Slots{capacity});
  }
  // Moves the elements to the front of `grown` (a larger buffer) and keeps it.
  void adopt(Buffer grown) {
    for (size_t i = 0; i < size_; ++i) {
      std::construct_at(grown.get() + i, std::move(*slot(i)));
      std::destroy_at(slot(i));
    }
    capacity_ = grown.get_deleter().capacity;
    slots_ = std::move(grown);
    head_ = 0;
  }

  static constexpr size_t kFirstCapacity = 4;
  Buffer slots_;
  size_t capacity_ = 0;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace mr::transport
