#include "reference/transport/qp_table.h"

#include <bit>

namespace mr::transport {

std::pair<QpTable::iterator, bool> QpTable::emplace(uint32_t qpn, std::unique_ptr<QueuePair> qp) {
  if (qpn == 0) return {end(), false};
  if (const size_t at = index_of(qpn); at != capacity()) return {entries_.data() + at, false};
  if (2 * (size_ + 1) > capacity()) grow();
  const size_t i = free_slot_for(qpn);
  entries_[i] = Entry{qpn, std::move(qp)};
  ++size_;
  return {entries_.data() + i, true};
}

size_t QpTable::erase(uint32_t qpn) {
  const size_t n = capacity();
  size_t hole = index_of(qpn);
  if (hole == n) return 0;
  entries_[hole] = Entry{};
  --size_;
  // Backward-shift deletion: move later entries of the probe run into the hole when the
  // hole lies on their way from their home slot, so no lookup stops early at it.
  const size_t mask = n - 1;
  for (size_t i = (hole + 1) & mask, step = 0; step < n && entries_[i].first != 0;
       i = (i + 1) & mask, ++step) {
    const size_t from_home = (i - home(entries_[i].first)) & mask;
    const size_t hole_from_home = (i - hole) & mask;
    if (hole_from_home <= from_home) {
      entries_[hole] = std::move(entries_[i]);
      entries_[i] = Entry{};
      hole = i;
    }
  }
  return 1;
}

void QpTable::grow() {
  std::vector<Entry> old = std::move(entries_);
  const size_t n = old.empty() ? kInitialCapacity : 2 * (old.size() - 1);
  entries_ = std::vector<Entry>(n + 1);
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(n));
  for (Entry& e : old) {
    if (e.first != 0) entries_[free_slot_for(e.first)] = std::move(e);
  }
}

size_t QpTable::free_slot_for(uint32_t qpn) const {
  const size_t n = capacity();
  const size_t mask = n - 1;
  size_t i = home(qpn);
  // At most half the entries are in use, so an empty one comes within n steps.
  for (size_t step = 0; step < n && entries_[i].first != 0; ++step) i = (i + 1) & mask;
  return i;
}

}  // namespace mr::transport
