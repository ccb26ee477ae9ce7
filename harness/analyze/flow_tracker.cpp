#include "harness/analyze/flow_tracker.h"

#include <algorithm>

#include "harness/analyze/psn.h"

namespace mr::analyze {
namespace {

constexpr uint32_t kSmallestPmtu = 256;

// PSNs a request consumes, or 0 when that needs a PMTU the capture has not shown yet.
uint32_t consumed(const PacketContext& c, uint32_t pmtu) {
  if (!c.is(wire::kRead) || !c.p.reth) return 1;
  const uint32_t dlen = c.p.reth->dlen.value();
  if (pmtu) return read_psns(dlen, pmtu);
  return dlen <= kSmallestPmtu ? 1 : 0;
}

void push(std::array<PendingRequest, kPendingReads>& ring, size_t& at, uint32_t psn,
          uint32_t dlen) {
  ring[at] = PendingRequest{psn, dlen, true};
  at = (at + 1) % ring.size();
}

void track_request(const PacketContext& c) {
  Direction& d = c.dir;
  RequesterState& r = d.req;
  const uint32_t psn = c.psn();
  ++d.requests;
  if ((c.is(wire::kFirst) || c.is(wire::kMiddle)) && !c.is(wire::kRead)) {
    r.pmtu = std::max<uint32_t>(r.pmtu, c.p.payload.size());
  }
  const uint32_t n = consumed(c, d.pmtu());
  const bool fresh = !r.started || psn_diff(psn, r.next_psn) >= 0;
  if (fresh) {
    if (!r.started) r.first_psn = psn;
    r.started = true;
    r.in_retx = false;
    r.next_psn_known = n != 0;
    r.next_psn = psn_add(psn, n ? n : 1);
    r.last_new_read = c.is(wire::kRead) && c.p.reth;
    if (r.last_new_read) {
      r.read_psn = psn;
      r.read_dlen = c.p.reth->dlen.value();
    }
    if (c.is(wire::kEnd)) ++d.messages;
    if (c.is(wire::kRead) && c.p.reth) push(r.reads, r.reads_at, psn, c.p.reth->dlen.value());
    if (c.is(wire::kAtomic)) push(r.atomics, r.atomics_at, psn, 0);
  } else {
    ++d.retransmissions;
    r.in_retx = n != 0;
    r.retx_next = psn_add(psn, n);
    if (psn_diff(r.retx_next, r.next_psn) >= 0) r.in_retx = false;
  }
  // The responder's side of the same exchange.
  if (!d.peer) return;
  ResponderState& s = d.peer->resp;
  if (s.nak_open && psn == s.nak_psn) s.nak_open = false;
  if ((c.is(wire::kSend) || c.is(wire::kWrite)) && c.p.bth.ackreq && s.acked &&
      psn_diff(psn, s.last_ack_psn) <= 0) {
    s.duplicate_pending = true;
  }
}

void track_response(const PacketContext& c) {
  Direction& d = c.dir;
  ResponderState& s = d.resp;
  const uint32_t psn = c.psn();
  ++d.responses;
  if (c.p.aeth) {
    s.msn_seen = true;
    s.msn = c.p.aeth->msn.value();
    const uint8_t syn = c.p.aeth->syndrome.value();
    const AckType type = ack_type(syn);
    // An ACK for a PSN never sent (MR-AK-02, reported) does not move the bookkeeping.
    const bool plausible =
        !d.peer || !d.peer->req.started || psn_diff(psn, sent_limit(d.peer->req)) < 0;
    if (type == AckType::kAck && plausible) {
      if (!s.acked || psn_diff(psn, s.last_ack_psn) > 0) s.last_ack_psn = psn;
      s.acked = true;
      if (c.is(wire::kAck)) s.duplicate_pending = false;
    } else if (type == AckType::kNak || type == AckType::kRnrNak) {
      ++d.naks;
      if (syn == kNakPsnSequence) {
        s.nak_open = true;
        s.nak_psn = psn;
      }
    }
  }
  if (c.is(wire::kRead)) {
    if (c.is(wire::kFirst) || c.is(wire::kMiddle)) {
      s.pmtu = std::max<uint32_t>(s.pmtu, c.p.payload.size());
    }
    if (c.is(wire::kFirst)) {
      s.read_open = true;
      s.read_last_known = false;
      if (d.peer) {
        if (const PendingRequest* rq = find_read(d.peer->req, psn, d.pmtu())) {
          s.read_last_known = d.pmtu() != 0;
          s.read_last_psn = psn_add(rq->psn, read_psns(rq->dlen, d.pmtu() ? d.pmtu() : 1) - 1);
        }
      }
    }
    s.read_next_psn = psn_add(psn, 1);
    if (c.is(wire::kEnd)) s.read_open = false;
  }
}

}  // namespace

uint32_t sent_limit(const RequesterState& r) {
  if (r.next_psn_known) return r.next_psn;
  return psn_add(r.read_psn, read_psns(r.read_dlen, kSmallestPmtu));
}

const PendingRequest* find_read(const RequesterState& r, uint32_t psn, uint32_t pmtu) {
  for (const PendingRequest& q : r.reads) {
    if (!q.valid) continue;
    const uint32_t count = read_psns(q.dlen, pmtu ? pmtu : kSmallestPmtu);
    const int32_t off = psn_diff(psn, q.psn);
    if (off >= 0 && static_cast<uint32_t>(off) < count) return &q;
  }
  return nullptr;
}

const PendingRequest* find_atomic(const RequesterState& r, uint32_t psn) {
  for (const PendingRequest& q : r.atomics) {
    if (q.valid && q.psn == psn) return &q;
  }
  return nullptr;
}

void track(const PacketContext& c) {
  ++c.dir.packets;
  if (c.is(wire::kCnp)) {
    ++c.dir.cnps;
    c.dir.resp.cnp_seen = true;
    c.dir.resp.last_cnp_ns = c.time_ns;
  } else if (c.is_request()) {
    track_request(c);
  } else if (c.is_response()) {
    track_response(c);
  }
  if (!c.dir.sport_known && !c.is(wire::kCnp)) {
    c.dir.sport_known = true;
    c.dir.sport = c.p.udp.sport.value();
  }
}

}  // namespace mr::analyze
