#include "harness/analyze/flow_tracker.h"

#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/psn.h"

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

void push(std::array<PendingRequest, kPendingReads>& ring, size_t& at, PendingRequest q) {
  q.valid = true;
  ring[at] = q;
  at = (at + 1) % ring.size();
}

// A READ into the ring, keeping the count of reissues in it.
void push_read(RequesterState& r, PendingRequest q) {
  const PendingRequest& evicted = r.reads[r.reads_at];
  if (evicted.valid && evicted.reissue) --r.reissues;
  if (q.reissue) ++r.reissues;
  push(r.reads, r.reads_at, q);
}

// The PMTU a READ reissue at `psn` implies for the READ `q`: the one (known, or any of the
// five) for which the reissue names exactly the tail of q's range (MR-RT-05), or 0.
uint32_t reissue_pmtu(const PendingRequest& q, uint32_t psn, uint32_t dlen, uint64_t va,
                      uint32_t known_pmtu) {
  const int32_t k = wire::psn_diff(psn, q.psn);
  if (k <= 0) return 0;
  for (uint32_t pmtu = 256; pmtu <= 4096; pmtu *= 2) {
    if (known_pmtu && pmtu != known_pmtu) continue;
    const uint64_t skipped = static_cast<uint64_t>(k) * pmtu;
    if (static_cast<uint32_t>(k) < read_psns(q.dlen, pmtu) && skipped + dlen == q.dlen &&
        q.va + skipped == va) {
      return pmtu;
    }
  }
  return 0;
}

void track_responder_side(const PacketContext& c);

void track_request(const PacketContext& c) {
  Direction& d = c.dir;
  RequesterState& r = d.req;
  const uint32_t psn = c.psn();
  ++d.requests;
  if ((c.is(wire::kFirst) || c.is(wire::kMiddle)) && !c.is(wire::kRead)) {
    infer_pmtu(r.pmtu, r.pmtu_candidate, c.p.payload.size());
  }
  // A READ whose PSN count waited for the PMTU: once the connection shows it, the next
  // PSN is known.
  if (r.started && !r.next_psn_known) {
    if (auto next = expected_next_psn(d)) {
      r.next_psn = *next;
      r.next_psn_known = true;
    }
  }
  uint32_t reissue_at_pmtu = 0;
  if (const PendingRequest* q = reissued_read(c, &reissue_at_pmtu)) {
    // MR-RT-05: the tail of an earlier READ asked again; a retransmission, never new.
    const uint32_t original_end = wire::psn_add(q->psn, read_psns(q->dlen, reissue_at_pmtu));
    if (!r.next_psn_known && q->psn == r.read_psn) {
      r.next_psn = original_end;
      r.next_psn_known = true;
    }
    ++d.retransmissions;
    r.retx_next = wire::psn_add(psn, read_psns(c.p.reth->dlen.value(), reissue_at_pmtu));
    r.in_retx = wire::psn_diff(r.retx_next, r.next_psn) < 0;
    push_read(r, PendingRequest{psn, c.p.reth->dlen.value(), true, c.p.reth->va.value(), true});
    track_responder_side(c);
    return;
  }
  const uint32_t n = consumed(c, d.pmtu());
  const bool fresh = !r.started || wire::psn_diff(psn, r.next_psn) >= 0;
  if (fresh) {
    if (!r.started) r.first_psn = psn;
    r.started = true;
    r.in_retx = false;
    r.next_psn_known = n != 0;
    r.next_psn = wire::psn_add(psn, n ? n : 1);
    r.last_new_read = c.is(wire::kRead) && c.p.reth;
    if (r.last_new_read) {
      r.read_psn = psn;
      r.read_dlen = c.p.reth->dlen.value();
    }
    if (c.is(wire::kEnd)) ++d.messages;
    if (c.is(wire::kRead) && c.p.reth) {
      push_read(r, PendingRequest{psn, c.p.reth->dlen.value(), true, c.p.reth->va.value(), false});
    }
    if (c.is(wire::kAtomic)) push(r.atomics, r.atomics_at, PendingRequest{psn, 0, true});
  } else {
    ++d.retransmissions;
    // A retransmitted READ whose entry the ring has recycled (many READs and reissues since),
    // or one from inside an earlier READ's range that names no tail of it (MR-PS-02's), is
    // asked again: the responses to it start at its PSN and must find a READ there.
    if (c.is(wire::kRead) && c.p.reth && !find_read_at(r, psn)) {
      push_read(r, PendingRequest{psn, c.p.reth->dlen.value(), true, c.p.reth->va.value(), false});
    }
    r.in_retx = n != 0;
    r.retx_next = wire::psn_add(psn, n);
    if (wire::psn_diff(r.retx_next, r.next_psn) >= 0) r.in_retx = false;
  }
  track_responder_side(c);
}

// The responder's side of a request: an open NAK closed, a duplicate awaiting its ACK.
void track_responder_side(const PacketContext& c) {
  Direction& d = c.dir;
  const uint32_t psn = c.psn();
  if (!d.peer) return;
  ResponderState& s = d.peer->resp;
  if (s.nak_open && psn == s.nak_psn) s.nak_open = false;
  if ((c.is(wire::kSend) || c.is(wire::kWrite)) && c.p.bth.ackreq && s.acked &&
      wire::psn_diff(psn, s.last_ack_psn) <= 0) {
    s.duplicate_pending = true;
  }
}

// The READ's last PSN at this PMTU (1 PSN per packet while it is unknown).
uint32_t last_psn(const PendingRequest& q, uint32_t pmtu) {
  return wire::psn_add(q.psn, read_psns(q.dlen, pmtu ? pmtu : 1) - 1);
}

// A READ response opens the answer it starts (FIRST, ONLY, or a MIDDLE with none open: after
// a loss, or answering a READ reissued mid-range, so the checker reports the root event once
// and resynchronises). An answer that ended before its READ's last PSN (an ONLY for a READ
// of more packets, a LAST too early) is one event too: the MIDDLE or LAST that goes on from
// it resumes it (ResponderState::read_cut). A response whose PSN breaks the sequence (a
// FIRST inside a READ's range, not at its PSN; a MIDDLE or LAST that does not follow) is one
// event, reported there: the next response may follow it (the responder shifted the rest)
// or follow the sequence the READ asks for (that one packet was misnumbered), and either is
// no second one.
void track_read_response(const PacketContext& c, ResponderState& s) {
  const uint32_t psn = c.psn();
  const uint32_t pmtu = c.dir.pmtu();
  // The rest of an answer that ended early resumes it: the READ's last PSN still holds.
  if (resumes_cut_answer(s, c)) s.read_open = true;
  s.read_cut = false;
  const bool realigned = s.read_realign && s.read_open && psn == s.read_realign_psn;
  if (realigned) s.read_last_psn = s.read_realign_last_psn;
  s.read_realign = false;
  // The answer to a READ reissued at this PSN, starting mid-sequence (MR-RD-09's), opens too.
  const bool answers_reissue = !realigned && !(s.read_open && psn == s.read_next_psn) &&
                               c.dir.peer && find_read_reissue(c.dir.peer->req, psn);
  if (c.is(wire::kStart) || (c.is(wire::kMiddle) && !s.read_open) || answers_reissue) {
    s.read_open = true;
    s.read_last_known = false;
    const PendingRequest* rq = nullptr;
    if (c.dir.peer) {
      rq = find_read_at(c.dir.peer->req, psn);
      if (!rq) rq = find_read(c.dir.peer->req, psn, pmtu);
    }
    if (rq) {
      s.read_last_known = pmtu != 0;
      s.read_last_psn = last_psn(*rq, pmtu);
      if (c.is(wire::kStart) && rq->psn != psn) {
        s.read_realign = true;
        s.read_realign_psn = wire::psn_add(rq->psn, 1);
        s.read_realign_last_psn = s.read_last_psn;
        s.read_last_psn = wire::psn_add(s.read_last_psn, wire::psn_diff(psn, rq->psn));
      }
    }
  } else if (s.read_open && !realigned && psn != s.read_next_psn) {
    s.read_realign = true;
    s.read_realign_psn = wire::psn_add(s.read_next_psn, 1);
    s.read_realign_last_psn = s.read_last_psn;
    s.read_last_psn = wire::psn_add(s.read_last_psn, wire::psn_diff(psn, s.read_next_psn));
  }
  s.read_next_psn = wire::psn_add(psn, 1);
  if (c.is(wire::kEnd)) {
    s.read_open = false;
    s.read_cut = s.read_last_known && wire::psn_diff(s.read_last_psn, psn) > 0;
  }
}

void track_response(const PacketContext& c) {
  Direction& d = c.dir;
  ResponderState& s = d.resp;
  const uint32_t psn = c.psn();
  ++d.responses;
  if (c.p.aeth) {
    // An MSN that went back (MR-AK-03, reported) is not the count the next AETH is judged
    // against: the MSNs after it that go on from the right count are no violations.
    const uint32_t msn = c.p.aeth->msn.value();
    if (!s.msn_seen || wire::psn_diff(msn, s.msn) >= 0) {
      s.msn_seen = true;
      s.msn = msn;
    }
    const uint8_t syn = c.p.aeth->syndrome.value();
    const wire::SyndromeType type = wire::syndrome_type(syn);
    // An ACK for a PSN never sent (MR-AK-02, reported) does not move the bookkeeping.
    const bool plausible =
        !d.peer || !d.peer->req.started || wire::psn_diff(psn, sent_limit(d.peer->req)) < 0;
    if (type == wire::SyndromeType::kAck && plausible) {
      if (!s.acked || wire::psn_diff(psn, s.last_ack_psn) > 0) s.last_ack_psn = psn;
      s.acked = true;
      if (c.is(wire::kAck)) s.duplicate_pending = false;
    } else if (type == wire::SyndromeType::kNak || type == wire::SyndromeType::kRnrNak) {
      ++d.naks;
      // A NAK whose PSN is no ePSN (MR-PS-04, reported) opens no NAK state: the request it
      // waits for may never come, and every NAK after it would be judged a second one.
      if (syn == wire::kNakPsnSequenceError && could_be_epsn(d, psn)) {
        s.nak_open = true;
        s.nak_psn = psn;
      }
    }
  }
  if (c.is(wire::kRead)) {
    if (c.is(wire::kFirst) || c.is(wire::kMiddle)) {
      infer_pmtu(s.pmtu, s.pmtu_candidate, c.p.payload.size());
    }
    track_read_response(c, s);
  }
}
}  // namespace

void infer_pmtu(uint32_t& pmtu, uint32_t& candidate, size_t size) {
  if (!is_pmtu(size)) return;
  const auto n = static_cast<uint32_t>(size);
  if (pmtu == 0 || n == pmtu || n == candidate) {
    pmtu = n;
    candidate = 0;
  } else {
    candidate = n;
  }
}

bool could_be_epsn(const Direction& d, uint32_t psn) {
  if (!d.peer || !d.peer->req.started) return true;
  if (wire::psn_diff(psn, sent_limit(d.peer->req)) >= 0) return false;
  return !d.resp.acked || wire::psn_diff(psn, d.resp.last_ack_psn) > 0;
}

uint32_t sent_limit(const RequesterState& r) {
  if (r.next_psn_known) return r.next_psn;
  return wire::psn_add(r.read_psn, read_psns(r.read_dlen, kSmallestPmtu));
}

const PendingRequest* find_read(const RequesterState& r, uint32_t psn, uint32_t pmtu) {
  for (const PendingRequest& q : r.reads) {
    if (!q.valid) continue;
    const uint32_t count = read_psns(q.dlen, pmtu ? pmtu : kSmallestPmtu);
    const int32_t off = wire::psn_diff(psn, q.psn);
    if (off >= 0 && static_cast<uint32_t>(off) < count) return &q;
  }
  return nullptr;
}

const PendingRequest* find_read_at(const RequesterState& r, uint32_t psn) {
  for (const PendingRequest& q : r.reads) {
    if (q.valid && q.psn == psn) return &q;
  }
  return nullptr;
}

const PendingRequest* reissued_read(const PacketContext& c, uint32_t* pmtu) {
  if (!c.is_request() || !c.is(wire::kRead) || !c.p.reth || !c.dir.req.started) return nullptr;
  const RequesterState& r = c.dir.req;
  const uint32_t psn = c.psn();
  if (auto next = expected_next_psn(c.dir); next && wire::psn_diff(psn, *next) >= 0) return nullptr;
  for (const PendingRequest& q : r.reads) {
    const int32_t k = wire::psn_diff(psn, q.psn);
    if (!q.valid || k <= 0 || static_cast<uint32_t>(k) >= read_psns(q.dlen, kSmallestPmtu)) {
      continue;
    }
    const uint32_t m =
        reissue_pmtu(q, psn, c.p.reth->dlen.value(), c.p.reth->va.value(), c.dir.pmtu());
    if (m == 0) continue;
    if (pmtu) *pmtu = m;
    return &q;
  }
  return nullptr;
}

const PendingRequest* find_read_reissue(const RequesterState& r, uint32_t psn) {
  if (r.reissues == 0) return nullptr;  // most connections: no scan of the ring's lines
  for (const PendingRequest& q : r.reads) {
    if (q.valid && q.reissue && q.psn == psn) return &q;
  }
  return nullptr;
}

const PendingRequest* find_atomic(const RequesterState& r, uint32_t psn) {
  for (const PendingRequest& q : r.atomics) {
    if (q.valid && q.psn == psn) return &q;
  }
  return nullptr;
}

// A packet with an opcode outside the table (MR-WF-10, reported) at exactly the PSN the
// requester's sequence expects next takes that PSN, as the request it was meant to be, so
// the request after it is not reported as skipping it (MR-PS-01, MR-PS-10).
void track_unknown_opcode(const PacketContext& c) {
  RequesterState& r = c.dir.req;
  const uint32_t psn = c.psn();
  if (!r.started) return;
  if (r.in_retx && psn == r.retx_next) {
    r.retx_next = wire::psn_add(psn, 1);
    if (wire::psn_diff(r.retx_next, r.next_psn) >= 0) r.in_retx = false;
  } else if (!r.in_retx && r.next_psn_known && psn == r.next_psn) {
    r.next_psn = wire::psn_add(psn, 1);
    r.last_new_read = false;
  }
}

// The newest multi-packet WRITE, so that its MIDDLE and LAST packets, retransmitted ones
// too, can be held to its DMA length (MR-MP-07). A new message or another request ends it.
void track_write_length(const PacketContext& c) {
  RequesterState& r = c.dir.req;
  if (c.is(wire::kWrite) && c.is(wire::kFirst) && c.p.reth) {
    r.write_open = true;
    r.write_first_psn = c.psn();
    r.write_dlen = c.p.reth->dlen.value();
    r.write_segment = static_cast<uint32_t>(c.p.payload.size());
  } else if (!c.is(wire::kWrite) || c.is(wire::kStart)) {
    r.write_open = false;
  }
}

void track(const PacketContext& c) {
  ++c.dir.packets;
  if (c.is(wire::kCnp)) {
    ++c.dir.cnps;
    c.dir.resp.cnp_seen = true;
    c.dir.resp.last_cnp_ns = c.time_ns;
  } else if (c.is_request()) {
    track_request(c);
    track_write_length(c);
  } else if (c.is_response()) {
    track_response(c);
  } else if (!c.info) {
    track_unknown_opcode(c);
  }
  if (!c.dir.sport_known && !c.is(wire::kCnp)) {
    c.dir.sport_known = true;
    c.dir.sport = c.p.udp.sport.value();
  }
}

}  // namespace mr::analyze
