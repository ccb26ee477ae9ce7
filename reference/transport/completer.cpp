#include "reference/transport/completer.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string_view>

#include "reference/memory/atomics.h"
#include "reference/transport/requester.h"
#include "reference/transport/timers.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"

namespace mr::transport {

WcOpcode wc_opcode(SendOpcode op) {
  switch (op) {
    case SendOpcode::kWrite:
    case SendOpcode::kWriteWithImm:
      return WcOpcode::kRdmaWrite;
    case SendOpcode::kRead:
      return WcOpcode::kRdmaRead;
    case SendOpcode::kCompareSwap:
      return WcOpcode::kCompareSwap;
    case SendOpcode::kFetchAdd:
      return WcOpcode::kFetchAdd;
    default:
      return WcOpcode::kSend;
  }
}

namespace {

enum class CompState : uint8_t {
  kCheckPsn,
  kCheckAck,
  kReadResponse,
  kAtomicResponse,
  kAcknowledge,
  kSequenceNak,
  kRnrNak,
  kFatalNak,
  kDone,
};

// The states' names for the step trace, in the enum's order.
constexpr std::string_view kCompStateNames[] = {"CheckPsn",       "CheckAck",    "ReadResponse",
                                                "AtomicResponse", "Acknowledge", "SequenceNak",
                                                "RnrNak",         "FatalNak",    "Done"};
static_assert(std::size(kCompStateNames) == static_cast<size_t>(CompState::kDone) + 1);

struct Response {
  const wire::RocePacket& p;
  const wire::OpcodeInfo& info;
  uint32_t psn;
  CompState state = CompState::kCheckPsn;
};

// Pops completed WQEs off the head of the SQ (succeed() and fail() reported them).
void retire(QueuePair& qp) {
  while (!qp.sq.empty() && qp.sq.front().completed) {
    qp.sq.pop_front();
    if (qp.send_index > 0) --qp.send_index;
  }
}

void succeed(QueuePair& qp, SendWqe& w, QpContext& ctx) {
  w.completed = true;
  if (w.wr.signaled) {
    Completion c;
    c.wr_id = w.wr.wr_id;
    c.opcode = wc_opcode(w.wr.opcode);
    c.byte_len = w.length;
    c.qp_num = qp.qpn;
    ctx.complete_send(qp, c);
  }
}

// Records that every request PSN up to `psn` is acknowledged (ignores stale values).
// Returns whether that is progress: it resets the retry budget (MR-RT-06 counts retries
// without progress) and ends any sequence NAK retry.
bool note_acked(QueuePair& qp, uint32_t psn, const QpContext& ctx) {
  if (wire::psn_diff(psn, qp.acked_psn) <= 0 || wire::psn_diff(psn, qp.next_psn) >= 0) return false;
  qp.acked_psn = psn;
  if (ctx.decide.completer.resets_retry_budget_on_progress) qp.retries_left = qp.attr.retry_cnt;
  qp.nak_retry_psn.reset();
  return true;
}

void progress_made(QueuePair& qp, QpContext& ctx) {
  if (ctx.decide.completer.resets_retry_budget_on_progress) qp.retries_left = qp.attr.retry_cnt;
  if (ctx.decide.completer.resets_rnr_budget_on_progress) qp.rnr_retries_left = qp.attr.rnr_retry;
  retire(qp);
  const bool outstanding = !qp.sq.empty() && qp.sq.front().started;
  const uint64_t t = ack_timeout_ns(qp.attr.timeout);
  qp.retransmit_deadline_ns.reset();
  if (outstanding && t > 0 && ctx.decide.completer.rearms_timer_on_progress)
    qp.retransmit_deadline_ns = ctx.now_ns + t;
}

// Completes every SEND/WRITE WQE whose last PSN is at or before `psn` (cumulative ACK).
// A READ or ATOMIC at or before `psn` that got no response is an implicit NAK
// (MR-RT-08): returns its first missing PSN so the caller retries from there.
std::optional<uint32_t> acknowledge_through(QueuePair& qp, uint32_t psn, bool inclusive,
                                            QpContext& ctx) {
  for (SendWqe& w : qp.sq) {
    if (w.completed) continue;
    if (!w.started) break;
    const int32_t d = wire::psn_diff(w.last_psn(), psn);
    if (d > 0 || (d == 0 && !inclusive)) break;
    if (w.is_read_or_atomic()) {
      if (!ctx.decide.completer.implicit_nak_for_read) {
        succeed(qp, w, ctx);
        continue;
      }
      // The READ/ATOMIC's missing responses are not acknowledged by the later PSN: pull the
      // acknowledged PSN back so that the responses to the retried request are not stale.
      const uint32_t answered =
          wire::psn_add(w.first_psn, static_cast<int32_t>(w.read_packets) - 1);
      if (wire::psn_diff(qp.acked_psn, answered) > 0) qp.acked_psn = answered;
      return wire::psn_add(w.first_psn, w.read_packets);
    }
    succeed(qp, w, ctx);
  }
  return std::nullopt;
}

SendWqe* wqe_for(QueuePair& qp, uint32_t psn) {
  for (SendWqe& w : qp.sq) {
    if (!w.started) break;
    const int32_t d = wire::psn_diff(psn, w.first_psn);
    if (!w.completed && d >= 0 && d < static_cast<int32_t>(w.npsn)) return &w;
  }
  return nullptr;
}

void fail(QueuePair& qp, SendWqe& w, WcStatus status, QpContext& ctx) {
  Completion c;
  c.wr_id = w.wr.wr_id;
  c.status = status;
  c.opcode = wc_opcode(w.wr.opcode);
  c.qp_num = qp.qpn;
  w.completed = true;
  ctx.complete_send(qp, c);  // errors complete whether signaled or not
  enter_error(qp, ctx);
}

void retry_from(QueuePair& qp, uint32_t psn, QpContext& ctx) {
  const CompleterDecisions& decide = ctx.decide.completer;
  const bool unlimited =
      !decide.honours_retry_count || (qp.attr.retry_cnt == 7 && !decide.retry_count_seven_is_seven);
  if (qp.retries_left == 0 && !unlimited) {
    ++ctx.counters.retry_exceeded_err;
    if (!qp.sq.empty()) fail(qp, qp.sq.front(), WcStatus::kRetryExceededError, ctx);
    return;
  }
  if (qp.retries_left > 0) --qp.retries_left;
  ++ctx.counters.completer_retry_err;
  rewind_requester(qp, psn, ctx.decide.requester);
  const uint64_t t = ack_timeout_ns(qp.attr.timeout);
  qp.retransmit_deadline_ns.reset();
  if (t > 0) qp.retransmit_deadline_ns = ctx.now_ns + t;
}

// MR-RT-08's implicit NAK: a READ or ATOMIC left unanswered behind a later response. Every
// later response already in flight shows the same gap; only the first starts a retry (rxe's
// started_retry), or each would rewind the queue again and spend the retry budget.
void retry_unanswered(QueuePair& qp, uint32_t psn, QpContext& ctx) {
  if (qp.nak_retry_psn == psn && ctx.decide.completer.one_retry_per_implicit_nak) return;
  qp.nak_retry_psn = psn;
  retry_from(qp, psn, ctx);
}

CompState check_psn(QueuePair& qp, Response& r) {
  // A response for PSNs already acknowledged is stale (MR-AK-10); one for a PSN never sent
  // is ignored too.
  if (qp.sq.empty() || !qp.sq.front().started) return CompState::kDone;
  const uint32_t oldest = wire::psn_add(qp.acked_psn, 1);
  if (wire::psn_diff(r.psn, oldest) < 0) return CompState::kDone;
  if (wire::psn_diff(r.psn, qp.next_psn) >= 0 &&
      wire::psn_diff(r.psn, qp.sq.front().last_psn()) > 0 && !r.info.is(wire::kRead)) {
    return CompState::kDone;
  }
  return CompState::kCheckAck;
}

CompState check_ack(Response& r) {
  if (r.info.is(wire::kRead)) return CompState::kReadResponse;
  if (r.p.bth.opcode == wire::kOpRcAtomicAcknowledge) return CompState::kAtomicResponse;
  const uint8_t syndrome = r.p.aeth ? r.p.aeth->syndrome.value() : 0;
  if (wire::is_ack(syndrome)) return CompState::kAcknowledge;
  if (wire::is_rnr_nak(syndrome)) return CompState::kRnrNak;
  if (syndrome == wire::kNakPsnSequenceError) return CompState::kSequenceNak;
  return CompState::kFatalNak;  // the other NAK codes, and reserved syndromes (MR-AK-16)
}

CompState acknowledge(QueuePair& qp, Response& r, QpContext& ctx) {
  note_acked(qp, r.psn, ctx);
  if (auto missing = acknowledge_through(qp, r.psn, true, ctx)) {
    progress_made(qp, ctx);
    retry_unanswered(qp, *missing, ctx);
    return CompState::kDone;
  }
  progress_made(qp, ctx);
  return CompState::kDone;
}

CompState read_response(QueuePair& qp, Response& r, QpContext& ctx) {
  SendWqe* w = wqe_for(qp, r.psn);
  if (w == nullptr || w->wr.opcode != SendOpcode::kRead) return CompState::kDone;
  // Earlier SEND/WRITEs are implicitly acknowledged by a later response.
  if (auto missing = acknowledge_through(qp, wire::psn_add(w->first_psn, -1), true, ctx)) {
    retry_unanswered(qp, *missing, ctx);
    return CompState::kDone;
  }
  const uint32_t expected = wire::psn_add(w->first_psn, w->read_packets);
  if (r.psn != expected) return CompState::kDone;  // out of order: the timer recovers
  const bool start = r.info.is(wire::kStart);
  // MR-RD-11: FIRST/ONLY starts, MIDDLE/LAST continue; anything else is a bad response.
  if (start != (w->read_packets == 0 || r.p.bth.opcode == wire::kOpRcRdmaReadResponseFirst ||
                r.p.bth.opcode == wire::kOpRcRdmaReadResponseOnly)) {
    fail(qp, *w, WcStatus::kBadResponseError, ctx);
    return CompState::kDone;
  }
  // MR-RD-11: FIRST, LAST and ONLY must carry an AETH of the ACK type.
  if (r.p.aeth && !wire::is_ack(r.p.aeth->syndrome.value())) {
    fail(qp, *w, WcStatus::kBadResponseError, ctx);
    return CompState::kDone;
  }
  const uint32_t mtu = qp.attr.path_mtu;
  uint32_t offset = w->read_packets * mtu;
  if (!ctx.decide.completer.places_read_beyond_64k) offset &= 0xffff;
  // Place the payload into the gather list at its offset (MR-RD-14).
  auto remaining = r.p.payload;
  for (const Sge& sge : w->wr.sg_list) {
    if (remaining.empty()) break;
    if (offset >= sge.length) {
      offset -= sge.length;
      continue;
    }
    const uint32_t n =
        std::min<uint32_t>(sge.length - offset, static_cast<uint32_t>(remaining.size()));
    auto dst =
        ctx.memory.resolve_local(sge.lkey, qp.init.pd, sge.addr + offset, n, memory::kLocalWrite);
    if (!dst) {
      fail(qp, *w, WcStatus::kLocalProtectionError, ctx);
      return CompState::kDone;
    }
    std::memcpy(dst->data(), remaining.data(), n);
    remaining = remaining.subspan(n);
    offset = 0;
  }
  ++w->read_packets;
  note_acked(qp, r.psn, ctx);
  if (r.info.is(wire::kEnd)) {
    w->read_packets = w->npsn;
    succeed(qp, *w, ctx);
  }
  progress_made(qp, ctx);
  return CompState::kDone;
}

}  // namespace

void store_atomic_original(const QueuePair& qp, const SendWqe& w, uint64_t original,
                           const QpContext& ctx) {
  if (w.wr.sg_list.empty()) return;
  const Sge& sge = w.wr.sg_list.front();
  if (auto dst = ctx.memory.resolve_local(sge.lkey, qp.init.pd, sge.addr, 8, memory::kLocalWrite))
    std::memcpy(dst->data(), &original, 8);
}

namespace {

CompState atomic_response(QueuePair& qp, Response& r, QpContext& ctx) {
  SendWqe* w = wqe_for(qp, r.psn);
  if (w == nullptr ||
      (w->wr.opcode != SendOpcode::kCompareSwap && w->wr.opcode != SendOpcode::kFetchAdd) ||
      !r.p.atomic_ack_eth) {
    return CompState::kDone;
  }
  if (auto missing = acknowledge_through(qp, wire::psn_add(w->first_psn, -1), true, ctx)) {
    retry_unanswered(qp, *missing, ctx);
    return CompState::kDone;
  }
  store_atomic_original(qp, *w, r.p.atomic_ack_eth->orig.value(), ctx);
  w->read_packets = 1;
  note_acked(qp, r.psn, ctx);
  succeed(qp, *w, ctx);
  progress_made(qp, ctx);
  return CompState::kDone;
}

CompState sequence_nak(QueuePair& qp, Response& r, QpContext& ctx) {
  ++ctx.counters.rcvd_seq_err;
  // MR-AK-09: everything before the NAK PSN is acknowledged; retry from the NAK PSN. A
  // repeat of the NAK that started the retry under way (a duplicated frame) adds nothing.
  const bool progress = note_acked(qp, wire::psn_add(r.psn, -1), ctx);
  if (!progress && qp.nak_retry_psn == r.psn) return CompState::kDone;
  qp.nak_retry_psn = r.psn;
  if (auto missing = acknowledge_through(qp, r.psn, false, ctx)) {
    retry_from(qp, *missing, ctx);
    return CompState::kDone;
  }
  retire(qp);
  if (qp.rnr_resume_ns && ctx.now_ns < *qp.rnr_resume_ns) return CompState::kDone;  // MR-RN-08
  retry_from(qp, r.psn, ctx);
  return CompState::kDone;
}

CompState rnr_nak(QueuePair& qp, Response& r, QpContext& ctx) {
  ++ctx.counters.rcvd_rnr_err;
  note_acked(qp, wire::psn_add(r.psn, -1), ctx);
  if (auto missing = acknowledge_through(qp, r.psn, false, ctx)) {
    retry_from(qp, *missing, ctx);
    return CompState::kDone;
  }
  retire(qp);
  const bool unlimited = qp.attr.rnr_retry == 7 || !ctx.decide.completer.honours_rnr_retry;
  if (qp.rnr_retries_left == 0 && !unlimited) {
    ++ctx.counters.retry_rnr_exceeded_err;
    if (SendWqe* w = wqe_for(qp, r.psn)) fail(qp, *w, WcStatus::kRnrRetryExceededError, ctx);
    return CompState::kDone;
  }
  if (qp.rnr_retries_left > 0 && !unlimited) --qp.rnr_retries_left;
  const uint64_t delay = ctx.decide.completer.honours_rnr_timer
                             ? rnr_delay_ns(wire::syndrome_value(r.p.aeth->syndrome))
                             : 0;
  qp.rnr_resume_ns = ctx.now_ns + delay;
  rewind_requester(qp, r.psn, ctx.decide.requester);
  qp.retransmit_deadline_ns.reset();  // the RNR timer, not the ACK timer, governs now
  return CompState::kDone;
}

CompState fatal_nak(QueuePair& qp, Response& r, QpContext& ctx) {
  const uint8_t syndrome = r.p.aeth ? r.p.aeth->syndrome.value() : 0;
  WcStatus status = WcStatus::kRemoteOperationError;
  if (syndrome == wire::kNakInvalidRequest) status = WcStatus::kRemoteInvalidRequestError;
  if (syndrome == wire::kNakRemoteAccessError) status = WcStatus::kRemoteAccessError;
  acknowledge_through(qp, r.psn, false, ctx);
  SendWqe* w = wqe_for(qp, r.psn);
  if (w == nullptr && !qp.sq.empty()) w = &qp.sq.front();
  if (w != nullptr) fail(qp, *w, status, ctx);  // MR-AK-08, MR-AK-16
  return CompState::kDone;
}

}  // namespace

void complete_response(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  const auto* info = wire::opcode_info(p.bth.opcode);
  if (info == nullptr) return;
  Response r{p, *info, p.bth.psn.value()};
  for (int steps = 0; steps < 16 && r.state != CompState::kDone; ++steps) {
    ctx.step("completer", kCompStateNames[static_cast<size_t>(r.state)], r.psn);
    switch (r.state) {
      case CompState::kCheckPsn:
        r.state = check_psn(qp, r);
        break;
      case CompState::kCheckAck:
        r.state = check_ack(r);
        break;
      case CompState::kReadResponse:
        r.state = read_response(qp, r, ctx);
        break;
      case CompState::kAtomicResponse:
        r.state = atomic_response(qp, r, ctx);
        break;
      case CompState::kAcknowledge:
        r.state = acknowledge(qp, r, ctx);
        break;
      case CompState::kSequenceNak:
        r.state = sequence_nak(qp, r, ctx);
        break;
      case CompState::kRnrNak:
        r.state = rnr_nak(qp, r, ctx);
        break;
      case CompState::kFatalNak:
        r.state = fatal_nak(qp, r, ctx);
        break;
      case CompState::kDone:
        break;
    }
  }
}

void on_retransmit_timeout(QueuePair& qp, QpContext& ctx) {
  qp.retransmit_deadline_ns.reset();
  if (qp.sq.empty() || !qp.sq.front().started) return;
  retry_from(qp, wire::psn_add(qp.acked_psn, 1), ctx);
}

}  // namespace mr::transport
