#include "harness/analyze/flow.h"

#include <algorithm>
#include <cstdio>

#include "harness/analyze/psn.h"
#include "reference/wire/address.h"

namespace mr::analyze {

std::string IpAddress::to_string() const {
  if (v6) return wire::Ipv6Address{bytes}.to_string();
  return wire::Ipv4Address{{bytes[0], bytes[1], bytes[2], bytes[3]}}.to_string();
}

uint32_t Direction::pmtu() const {
  uint32_t m = std::max(req.pmtu, resp.pmtu);
  if (peer) m = std::max({m, peer->req.pmtu, peer->resp.pmtu});
  return m;
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

Direction& FlowTable::find(const DirectionKey& key, uint32_t psn, bool is_response) {
  Direction* d = nullptr;
  if (last_ && *last_key_ == key) {
    d = last_;
  } else {
    auto [it, inserted] = dirs_.try_emplace(key);
    if (inserted) it->second.key = key;
    d = &it->second;
    last_key_ = &it->first;
    last_ = d;
  }
  if (!d->peer) pair(*d, psn, is_response);
  return *d;
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
    if (is_response && r.started && psn_diff(psn, psn_add(r.first_psn, -1)) >= 0 &&
        psn_diff(psn, r.next_psn) < 0) {
      by_psn = &c;
    }
  }
  Direction* chosen = by_psn ? by_psn : (count == 1 ? only : nullptr);
  if (!chosen) return;
  d.peer = chosen;
  chosen->peer = &d;
}

}  // namespace mr::analyze
