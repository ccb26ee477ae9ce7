// File: ev_selector.cpp
#include "reference/transport/ext/ev_selector.h"

#include <algorithm>

namespace mr::transport::ext {

EvSelector::EvSelector(EvSelectionMode mode, AdaptiveParameters parameters)
    : mode_(mode), parameters_(parameters), sprays_(mode != EvSelectionMode::kSingle) {}

template <typename Accept>
std::optional<size_t> EvSelector::advance(const EvTable& table, Accept accept) {
  const size_t n = table.size();
  const size_t start = cursor_ ? (*cursor_ + 1) % n : 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = (start + k) % n;
    if (accept(i)) {
      cursor_ = i;
      return i;
    }
  }
  return std::nullopt;
}

std::optional<size_t> EvSelector::first_usable(const EvTable& table, uint64_t now_ns) const {
  for (size_t i = 0; i < table.size(); ++i) {
    if (table.usable(i, now_ns)) return i;
  }
  return std::nullopt;
}

bool EvSelector::eligible(const EvTable& table, uint64_t now_ns, size_t i) const {
  return table.usable(i, now_ns) && hold(i) == 0;
}

// R's first eligible entry, removed with every entry before it.
std::optional<size_t> EvSelector::from_recycle_list(const EvTable& table, uint64_t now_ns) {
  while (!recycle_.empty()) {
    const size_t e = recycle_.front();
    recycle_.erase(recycle_.begin());
    if (e < table.size() && eligible(table, now_ns, e)) return e;
  }
  return std::nullopt;
}

void EvSelector::after_request_sent() {
  for (uint32_t& h : holds_) h -= h > 0 ? 1 : 0;
}

std::optional<size_t> EvSelector::first_transmission(const EvTable& table, uint64_t now_ns,
                                                     bool request) {
  auto usable = [&](size_t i) { return table.usable(i, now_ns); };
  if (mode_ != EvSelectionMode::kAdaptive || !request)  // oblivious, or a single entry
    return sprays_ ? advance(table, usable) : first_usable(table, now_ns);
  holds_.resize(table.size(), 0);
  ++first_transmissions_;
  std::optional<size_t> chosen;
  const bool explore = first_transmissions_ % parameters_.explore_every == 0;
  if (!explore) chosen = from_recycle_list(table, now_ns);
  if (!chosen) chosen = advance(table, [&](size_t i) { return eligible(table, now_ns, i); });
  if (!chosen) chosen = advance(table, usable);  // every usable entry held: ignore the holds
  after_request_sent();
  return chosen;
}

std::optional<size_t> EvSelector::retransmission(const EvTable& table, uint64_t now_ns,
                                                 size_t previous) {
  if (mode_ == EvSelectionMode::kSingle) return first_usable(table, now_ns);
  auto usable_other = [&](size_t i) { return i != previous && table.usable(i, now_ns); };
  std::optional<size_t> chosen;
  if (mode_ == EvSelectionMode::kAdaptive) {
    holds_.resize(table.size(), 0);
    chosen = advance(table, [&](size_t i) { return usable_other(i) && hold(i) == 0; });
  }
  if (!chosen) chosen = advance(table, usable_other);
  if (!chosen) chosen = advance(table, [&](size_t i) { return table.usable(i, now_ns); });
  if (mode_ == EvSelectionMode::kAdaptive) after_request_sent();
  return chosen;
}

void EvSelector::on_feedback(const EvTable& table, uint64_t now_ns, size_t entry,
                             EvFeedback feedback) {
  if (mode_ != EvSelectionMode::kAdaptive || entry >= table.size()) return;
  holds_.resize(table.size(), 0);
  if (feedback == EvFeedback::kMarked) {
    holds_[entry] = parameters_.hold;
    std::erase(recycle_, entry);
  } else if (feedback == EvFeedback::kClean && eligible(table, now_ns, entry)) {
    recycle_.push_back(entry);
    if (recycle_.size() > parameters_.recycle_depth) recycle_.erase(recycle_.begin());
  }
}

EvEncoding encode_udp(const EvEntry& e, uint32_t configured_flow_label) {
  return {.udp_source_port = e.ev, .flow_label = configured_flow_label & 0xfffff};
}

EvEncoding encode_flow(const EvEntry& e) {
  const uint32_t fl = ((uint32_t{e.plane} << 16) | e.ev) & 0xfffff;
  return {.udp_source_port = static_cast<uint16_t>(0xC000 | ((fl & 0x3FFF) ^ (fl >> 14))),
          .flow_label = fl};
}

}  // namespace mr::transport::ext
