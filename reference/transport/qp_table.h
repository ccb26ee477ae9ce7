// File: qp_table.h
//
// The device's queue pairs by QPN: a flat open-addressing table (linear probing, at most
// 50% full) whose entries keep the QPN beside the owning pointer, so a lookup reads one or
// two adjacent entries of one contiguous array whatever the number of QPs; a std::map walks
// log2(n) nodes, each a cache miss once the QPs outnumber the cache (14 at 10,000 QPs).
//
// QPNs are 24-bit and never 0 (QPN 0 is the SMI QP, never allocated here), so 0 marks an
// empty entry. Erasing shifts the following entries back (no tombstones), so probe chains
// stay as short as the load allows. Pointers to QueuePairs are stable; entries (and
// therefore iterators) move on insertion and erasure, as with std::unordered_map.
//
// The interface is std::map's subset the Device uses (find/end/contains/emplace/erase), so
// callers read the same:
//   QpTable qps;
//   qps.emplace(qpn, std::make_unique<QueuePair>());
//   if (auto it = qps.find(qpn); it != qps.end()) use(*it->second);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "reference/transport/queue_pair.h"

namespace mr::transport {

class QpTable {
 public:
  using Entry = std::pair<uint32_t, std::unique_ptr<QueuePair>>;  // {0, null} when empty
  using iterator = Entry*;
  using const_iterator = const Entry*;

  iterator find(uint32_t qpn) { return entries_.data() + index_of(qpn); }
  const_iterator find(uint32_t qpn) const { return entries_.data() + index_of(qpn); }
  // Past-the-end, what find returns for an absent QPN (the array's last entry is a
  // sentinel that always stays empty).
  iterator end() { return entries_.data() + capacity(); }
  const_iterator end() const { return entries_.data() + capacity(); }
  bool contains(uint32_t qpn) const { return index_of(qpn) != capacity(); }
  size_t size() const { return size_; }

  // Inserts unless the QPN is present or 0; returns where it is and whether it was added.
  std::pair<iterator, bool> emplace(uint32_t qpn, std::unique_ptr<QueuePair> qp);
  // Removes the QP with this QPN; returns how many were removed (0 or 1).
  size_t erase(uint32_t qpn);
  // Calls visit(QueuePair&) for every QP, in table order (not QPN order).
  template <typename Visit>
  void for_each(Visit visit) {
    for (size_t i = 0; i < capacity(); ++i)
      if (entries_[i].first != 0) visit(*entries_[i].second);
  }

 private:
  static constexpr size_t kInitialCapacity = 16;

  size_t capacity() const { return entries_.empty() ? 0 : entries_.size() - 1; }
  // The QPN's home slot: Fibonacci hashing, so that QPNs in a regular pattern spread too.
  size_t home(uint32_t qpn) const {
    return static_cast<size_t>((uint64_t{qpn} * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  // The entry holding qpn, or capacity() when it is absent. Inline: the data path makes
  // one per packet. At most half the entries are in use, so an empty one ends the probe.
  size_t index_of(uint32_t qpn) const {
    const size_t n = capacity();
    if (qpn == 0 || n == 0) return n;
    const size_t mask = n - 1;
    for (size_t i = home(qpn), step = 0; step < n; i = (i + 1) & mask, ++step) {
      if (entries_[i].first == qpn) return i;
      if (entries_[i].first == 0) return n;
    }
    return n;
  }
  // The first empty entry of qpn's probe run (the table must have one).
  size_t free_slot_for(uint32_t qpn) const;
  void grow();

  std::vector<Entry> entries_;  // capacity() slots (a power of two) and the end sentinel
  unsigned shift_ = 64;         // 64 - log2(capacity())
  size_t size_ = 0;
};

}  // namespace mr::transport
