// File: flow_tracker.h
//
// Advances a flow's state by one packet once every checker has seen it: the requester's
// expected PSN, retransmission state, inferred PMTU, pending READs and atomics, and the
// responder's ACK PSN, MSN, open NAK and open READ response. Also the queries checkers ask
// of that state.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "harness/analyze/checker.h"
#include "harness/analyze/flow.h"
#include "reference/wire/psn.h"

namespace mr::analyze {

void track(const PacketContext& c);

// The five path MTUs (IBTA 256 to 4096).
constexpr bool is_pmtu(size_t n) {
  return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096;
}

// The PMTU a direction's FIRST and MIDDLE packets show, updated by one of them of `size`
// bytes: the first size that is a PMTU. Another PMTU size once (a violation, reported by
// payload-size) changes nothing, so the right sizes after it are not judged against it;
// twice in a row, it is the PMTU (the first of the two is the one reported). A size that is
// no PMTU never becomes one.
void infer_pmtu(uint32_t& pmtu, uint32_t& candidate, size_t size);

// PSNs a READ of dlen bytes consumes at this PMTU: max(1, ceil(dlen / pmtu)) (MR-PS-02).
constexpr uint32_t read_psns(uint32_t dlen, uint32_t pmtu) {
  if (dlen == 0) return 1;
  // Every PMTU the spec allows is a power of two: a shift, where a division stalled the
  // flow tracker on every READ. An inferred PMTU (the largest payload seen) may be another.
  // (std::has_single_bit calls libgcc's popcount without -mpopcnt.)
  if (pmtu != 0 && (pmtu & (pmtu - 1)) == 0) {
    return (dlen >> std::countr_zero(pmtu)) + ((dlen & (pmtu - 1)) != 0 ? 1 : 0);
  }
  // Not (dlen + pmtu - 1) / pmtu: that wraps for a DMA length near 2^32 (a hostile capture).
  return dlen / pmtu + (dlen % pmtu != 0 ? 1 : 0);
}
static_assert(read_psns(0, 256) == 1 && read_psns(256, 256) == 1 && read_psns(257, 256) == 2);
static_assert(read_psns(0xffffffff, 4096) == 0x100000 && read_psns(0xffffffff, 1000) == 4294968);

// The PSN the requester's next new request must carry, once the capture shows enough to
// know it (a READ's PSN count needs the PMTU). Inline: out of line, the optional came back
// through the stack as two narrow stores and one wide load, and every check waited on them.
inline std::optional<uint32_t> expected_next_psn(const Direction& d) {
  const RequesterState& r = d.req;
  if (r.next_psn_known) return r.next_psn;
  if (r.last_new_read && d.pmtu())
    return wire::psn_add(r.read_psn, read_psns(r.read_dlen, d.pmtu()));
  return std::nullopt;
}

// Whether a PSN sequence NAK that `d` sends at `psn` can carry the responder's ePSN
// (MR-PS-04): a PSN the requester has sent and that is not yet acknowledged. True when the
// capture shows too little to tell.
bool could_be_epsn(const Direction& d, uint32_t psn);

// The PSN just after the newest request PSN the requester can have sent.
uint32_t sent_limit(const RequesterState& r);

// The pending READ whose response PSNs [psn, psn + count) hold `psn`, or nullptr.
const PendingRequest* find_read(const RequesterState& r, uint32_t psn, uint32_t pmtu);
// The pending READ (new, retransmitted or reissued) whose PSN is `psn`, or nullptr.
const PendingRequest* find_read_at(const RequesterState& r, uint32_t psn);
const PendingRequest* find_atomic(const RequesterState& r, uint32_t psn);

// When c is a READ that asks again for the tail of a READ the requester sent earlier (PSN
// inside its range, VA advanced and length reduced by whole PMTUs: MR-RT-05), that READ;
// `pmtu` receives the PMTU the reissue implies. Otherwise nullptr.
const PendingRequest* reissued_read(const PacketContext& c, uint32_t* pmtu = nullptr);
// The READ reissued at exactly `psn`, or nullptr.
const PendingRequest* find_read_reissue(const RequesterState& r, uint32_t psn);

// Whether c, a READ response, is the MIDDLE or LAST that goes on from an answer that ended
// before its READ's last PSN (ResponderState::read_cut); not when the requester has since
// reissued the READ there: that answer starts anew (MR-RD-09).
inline bool resumes_cut_answer(const ResponderState& s, const PacketContext& c) {
  return s.read_cut && !s.read_open && !c.is(wire::kStart) && c.psn() == s.read_next_psn &&
         !(c.dir.peer && find_read_reissue(c.dir.peer->req, c.psn()));
}

}  // namespace mr::analyze
