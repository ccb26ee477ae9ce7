// File: event_queue.h
//
// The discrete-event simulation's agenda: events ordered by time, and among equal times
// by the order they were scheduled (a sequence number), so that a run never depends on
// how a container happens to break ties. Time is in picoseconds: a 4 KiB frame at
// 100 Gbit/s takes 327.68 ns, which nanoseconds would round.
//
// A timing wheel, because a binary heap of the 10^5 events a 1,024-endpoint fabric keeps
// in flight spent half the simulation in cache misses: 65,536 buckets of 1.024 ns cover
// 67 us from the start of the current epoch; an event further out waits in a heap until
// the wheel's epoch reaches it. A bucket is a list through one shared pool of nodes (no
// container per bucket, whose capacities would keep growing one by one); when the wheel
// reaches it, its events move to one scratch vector and are sorted (by time, then
// sequence), and an event scheduled into that bucket meanwhile is inserted in order.
// Everything keeps its capacity, so a steady state schedules without allocating.
//
// Usage:
//   EventQueue q;
//   q.push({.time_ps = 1000, .kind = EventKind::kArrive, .port = 3, .packet = 9});
//   while (!q.empty() && q.top().time_ps <= limit) handle(q.pop());
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mr::io::fabric {

enum class EventKind : uint8_t {
  kTransmitDone,  // the port's frame has left: start the next one
  kArrive,        // the frame reaches the far end of the port's cable
};

struct Event {
  uint64_t time_ps = 0;
  uint64_t sequence = 0;  // set by push(): the tie-break
  EventKind kind = EventKind::kArrive;
  uint32_t port = 0;
  uint32_t packet = 0;
};

class EventQueue {
 public:
  EventQueue();
  void push(Event event);
  // The earliest event; the queue must not be empty. Not const: the wheel finds and sorts
  // the next bucket lazily, on the first look.
  const Event& top();
  Event pop();
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  uint64_t pushed() const { return next_sequence_; }

  static constexpr unsigned kBucketBits = 10;  // 1,024 ps per bucket
  static constexpr size_t kBuckets = size_t{1} << 16;
  static constexpr uint64_t kHorizonPs = uint64_t{kBuckets} << kBucketBits;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    Event event;
    uint32_t next = kNone;
  };

  void place(const Event& event);  // into the wheel or the overflow heap
  void settle();                   // makes current_ hold the earliest events, sorted
  void load(size_t bucket);        // moves a bucket's list into current_
  void start_epoch(uint64_t start_ps);
  size_t next_occupied(size_t from) const;
  void set_occupied(size_t bucket);
  void clear_occupied(size_t bucket);

  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  std::vector<uint32_t> heads_;     // per bucket: its first node, or kNone
  std::vector<uint64_t> occupied_;  // one bit per bucket with a list or loaded
  std::vector<Event> current_;      // bucket cursor_, sorted, once loaded
  std::vector<Event> overflow_;     // a heap of events at or after the epoch's end
  uint64_t epoch_ps_ = 0;           // time of bucket 0, a multiple of the bucket width
  size_t cursor_ = 0;               // the bucket being read
  size_t head_ = 0;                 // the next event of current_
  bool loaded_ = false;             // current_ holds bucket cursor_
  size_t size_ = 0;
  uint64_t next_sequence_ = 0;
};

}  // namespace mr::io::fabric
