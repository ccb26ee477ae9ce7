#include "harness/analyze/flow.h"

#include <cstdio>
#include <cstring>

#include "reference/wire/address.h"
#include "reference/wire/psn.h"

namespace mr::analyze {

std::string IpAddress::to_string() const {
  if (v6) return wire::Ipv6Address{bytes}.to_string();
  return wire::Ipv4Address{{bytes[0], bytes[1], bytes[2], bytes[3]}}.to_string();
}

uint64_t hash_of(const DirectionKey& k) {
  AddressWords w;
  std::memcpy(&w[0], k.src.bytes.data(), 16);
  std::memcpy(&w[2], k.dst.bytes.data(), 16);
  return hash_of_words(w, k.dqpn, k.src.v6);
}

std::string Direction::flow_label(bool as_request) const {
  char qp[16];
  if (as_request) {
    std::snprintf(qp, sizeof qp, "0x%06x", key.dqpn);
    return key.src.to_string() + "->" + key.dst.to_string() + " qp " + qp;
  }
  // A response travels to the requester's QPN; the flow is named by the responder's.
  if (peer) {
    std::snprintf(qp, sizeof qp, "0x%06x", peer->key.dqpn);
  } else {
    std::snprintf(qp, sizeof qp, "?");
  }
  return key.dst.to_string() + "->" + key.src.to_string() + " qp " + qp;
}

namespace {

constexpr size_t kCacheLine = 64;

// DirectionKey's == without a call to memcmp (the defaulted one made one per frame).
bool same_key(const DirectionKey& a, const DirectionKey& b) {
  uint64_t x[4];
  uint64_t y[4];
  std::memcpy(&x[0], a.src.bytes.data(), 16);
  std::memcpy(&x[2], a.dst.bytes.data(), 16);
  std::memcpy(&y[0], b.src.bytes.data(), 16);
  std::memcpy(&y[2], b.dst.bytes.data(), 16);
  return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0 && a.dqpn == b.dqpn &&
         a.src.v6 == b.src.v6 && a.dst.v6 == b.dst.v6;
}

}  // namespace

Direction& FlowTable::find(const DirectionKey& key, uint64_t h, uint32_t psn, bool is_response) {
  const size_t mask = index_.size() - 1;
  Direction* d = nullptr;
  for (size_t i = h & mask;; i = (i + 1) & mask) {  // ends: the index is at most half full
    const Slot& s = index_[i];
    if (!s.dir) break;
    if (s.hash == h && same_key(s.dir->key, key)) {
      d = s.dir;
      break;
    }
  }
  if (!d) d = insert(key, h);
  if (!d->peer) pair(*d, psn, is_response);
  return *d;
}

void FlowTable::prefetch_slot(uint64_t hash) const {
  __builtin_prefetch(&index_[hash & (index_.size() - 1)]);
}

void FlowTable::prefetch_direction(uint64_t hash) const {
  const Slot& s = index_[hash & (index_.size() - 1)];
  if (!s.dir || s.hash != hash) return;  // a collision probes on; too rare to chase
  // The lines most packets touch: everything before the READ/atomic rings (Direction's
  // member order puts them last), from the key to the ring cursors.
  const auto* at = reinterpret_cast<const char*>(s.dir);
  const auto* end = reinterpret_cast<const char*>(&s.dir->req.reads);
  for (; at < end; at += kCacheLine) __builtin_prefetch(at);
  __builtin_prefetch(end - 1);
}

Direction* FlowTable::insert(const DirectionKey& key, uint64_t hash) {
  auto [it, inserted] = dirs_.try_emplace(key);
  it->second.key = key;
  if (2 * (dirs_.size() + 1) > index_.size()) {
    std::vector<Slot> old(index_.size() * 2);
    old.swap(index_);
    for (const Slot& s : old) {
      if (!s.dir) continue;
      size_t i = s.hash & (index_.size() - 1);
      while (index_[i].dir) i = (i + 1) & (index_.size() - 1);
      index_[i] = s;
    }
  }
  const size_t mask = index_.size() - 1;
  size_t i = hash & mask;
  while (index_[i].dir) i = (i + 1) & mask;
  index_[i] = Slot{hash, &it->second};
  return &it->second;
}

// Pairs d with an unpaired direction of the reverse IP pair: the only candidate, or the one
// whose request PSN range holds the PSN of d's first response.
void FlowTable::pair(Direction& d, uint32_t psn, bool is_response) {
  Direction* only = nullptr;
  int count = 0;
  Direction* by_psn = nullptr;
  for (auto it = dirs_.lower_bound(DirectionKey{d.key.dst, d.key.src, 0});
       it != dirs_.end() && it->first.src == d.key.dst && it->first.dst == d.key.src; ++it) {
    Direction& c = it->second;
    if (c.peer || &c == &d) continue;
    ++count;
    only = &c;
    const RequesterState& r = c.req;
    if (is_response && r.started && wire::psn_diff(psn, wire::psn_add(r.first_psn, -1)) >= 0 &&
        wire::psn_diff(psn, r.next_psn) < 0) {
      by_psn = &c;
    }
  }
  Direction* chosen = by_psn ? by_psn : (count == 1 ? only : nullptr);
  if (!chosen) return;
  d.peer = chosen;
  chosen->peer = &d;
}

}  // namespace mr::analyze
