#include "reference/transport/requester.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string_view>

#include "reference/transport/packet_gather.h"
#include "reference/transport/timers.h"
#include "reference/transport/ud_requester.h"
#include "reference/wire/opcode.h"

namespace mr::transport {

// Opcode of packet `index` of `count` for a SEND or WRITE family (IBTA table 38).
uint8_t data_opcode(SendOpcode op, uint32_t index, uint32_t count) {
  const bool first = index == 0;
  const bool last = index + 1 == count;
  switch (op) {
    case SendOpcode::kSend:
    case SendOpcode::kSendWithImm:
    case SendOpcode::kSendWithInv: {
      if (first && last)
        return op == SendOpcode::kSend          ? wire::kOpRcSendOnly
               : op == SendOpcode::kSendWithImm ? wire::kOpRcSendOnlyWithImmediate
                                                : wire::kOpRcSendOnlyWithInvalidate;
      if (first) return wire::kOpRcSendFirst;
      if (!last) return wire::kOpRcSendMiddle;
      return op == SendOpcode::kSend          ? wire::kOpRcSendLast
             : op == SendOpcode::kSendWithImm ? wire::kOpRcSendLastWithImmediate
                                              : wire::kOpRcSendLastWithInvalidate;
    }
    case SendOpcode::kWrite:
    case SendOpcode::kWriteWithImm: {
      const bool imm = op == SendOpcode::kWriteWithImm;
      if (first && last)
        return imm ? wire::kOpRcRdmaWriteOnlyWithImmediate : wire::kOpRcRdmaWriteOnly;
      if (first) return wire::kOpRcRdmaWriteFirst;
      if (!last) return wire::kOpRcRdmaWriteMiddle;
      return imm ? wire::kOpRcRdmaWriteLastWithImmediate : wire::kOpRcRdmaWriteLast;
    }
    default:
      return 0;
  }
}

namespace {

enum class ReqState : uint8_t { kGetWqe, kCheckLimits, kTransmit, kDone };
// The states' names for the step trace, in the enum's order.
constexpr std::string_view kReqStateNames[] = {"GetWqe", "CheckLimits", "Transmit", "Done"};
static_assert(std::size(kReqStateNames) == static_cast<size_t>(ReqState::kDone) + 1);

struct Request {
  ReqState state = ReqState::kGetWqe;
  SendWqe* wqe = nullptr;
};

uint32_t unacked_psns(const QueuePair& qp) {
  const int32_t d = wire::psn_diff(qp.next_psn, wire::psn_add(qp.acked_psn, 1));
  return d > 0 ? static_cast<uint32_t>(d) : 0;
}

uint32_t outstanding_read_atomic(const QueuePair& qp) {
  uint32_t n = 0;
  for (size_t i = 0; i < qp.send_index && i < qp.sq.size(); ++i) {
    n += (qp.sq[i].is_read_or_atomic() && !qp.sq[i].completed) ? 1 : 0;
  }
  return n;
}

ReqState get_wqe(QueuePair& qp, Request& r) {
  if (qp.send_index >= qp.sq.size()) return ReqState::kDone;
  r.wqe = &qp.sq[qp.send_index];
  return ReqState::kCheckLimits;
}

ReqState check_limits(QueuePair& qp, Request& r, QpContext& ctx) {
  if (qp.rnr_resume_ns && ctx.now_ns < *qp.rnr_resume_ns) return ReqState::kDone;
  // MR-CC-07: a QP under DCQCN waits for its pacer.
  if (qp.rp) {
    qp.rp->catch_up(ctx.now_ns);
    if (ctx.now_ns < qp.rp->next_send_ns()) return ReqState::kDone;
  }
  // UC has no ACKs, so no window of unacknowledged PSNs.
  if (qp.init.type != QpType::kUc && unacked_psns(qp) >= kMaxUnackedPsns &&
      ctx.decide.requester.bounds_unacked_psns)
    return ReqState::kDone;
  // MR-RD-12: never more READ/ATOMICs outstanding than max_rd_atomic.
  if (r.wqe->is_read_or_atomic() && r.wqe->next_packet == 0 &&
      outstanding_read_atomic(qp) >= std::max<uint32_t>(1, qp.attr.max_rd_atomic)) {
    return ReqState::kDone;
  }
  return ReqState::kTransmit;
}

void add_ackreq_policy(QueuePair& qp, wire::RocePacket& p, bool last, QpContext& ctx) {
  const bool periodic = ++qp.unacked_packets_since_ackreq >= kAckReqEveryPackets &&
                        ctx.decide.requester.ackreq_periodic;
  const bool ackreq = (last && ctx.decide.requester.ackreq_on_last) || periodic;
  p.bth.ackreq = ackreq ? 1 : 0;
  if (ackreq) qp.unacked_packets_since_ackreq = 0;
}

// The frames pushed to the outbox since index `first`: what the pacer charges for.
size_t bytes_since(const QpContext& ctx, size_t first) {
  size_t n = 0;
  for (size_t i = first; i < ctx.outbox.frames.size(); ++i) n += ctx.outbox.frames[i].size();
  return n;
}

// A WQE's first transmission fixes its PSNs: one per packet, one for an atomic.
void start_wqe(QueuePair& qp, SendWqe& w, const QpContext& ctx) {
  if (w.started) return;
  w.started = true;
  w.first_psn = qp.next_psn;
  w.npsn = (w.wr.opcode == SendOpcode::kCompareSwap || w.wr.opcode == SendOpcode::kFetchAdd)
               ? 1
               : packets_for(w.length, qp.attr.path_mtu);
  if (w.wr.opcode == SendOpcode::kRead && !ctx.decide.requester.read_takes_psn_per_response) {
    w.npsn = 1;
  }
}

// One request for the rest of the READ: a retry resumes after the responses received.
void send_read_request(QueuePair& qp, SendWqe& w, uint32_t psn, QpContext& ctx) {
  const uint32_t offset =
      ctx.decide.requester.read_retry_after_received ? w.next_packet * qp.attr.path_mtu : 0;
  wire::RocePacket p = ctx.factory.start(qp, wire::kOpRcRdmaReadRequest, psn);
  p.reth = wire::Reth{w.wr.remote_addr + offset, w.wr.rkey, w.length - offset};
  p.bth.ackreq = 1;
  qp.unacked_packets_since_ackreq = 0;
  ctx.send(p);
  w.next_packet = w.npsn;
  qp.next_psn = wire::psn_add(w.first_psn, w.npsn);
}

void send_atomic(QueuePair& qp, SendWqe& w, uint32_t psn, QpContext& ctx) {
  const bool cas = w.wr.opcode == SendOpcode::kCompareSwap;
  wire::RocePacket p =
      ctx.factory.start(qp, cas ? wire::kOpRcCompareSwap : wire::kOpRcFetchAdd, psn);
  p.atomic_eth = wire::AtomicEth{w.wr.remote_addr, w.wr.rkey, cas ? w.wr.swap : w.wr.compare_add,
                                 cas ? w.wr.compare_add : 0};
  p.bth.ackreq = 1;
  qp.unacked_packets_since_ackreq = 0;
  ctx.send(p);
  w.next_packet = 1;
  qp.next_psn = wire::psn_add(psn, 1);
}

// The next packet of a SEND or WRITE: its opcode, extension headers, flags and payload.
void send_data_packet(QueuePair& qp, SendWqe& w, uint32_t psn, QpContext& ctx) {
  const uint32_t mtu = qp.attr.path_mtu;
  const uint32_t offset = w.next_packet * mtu;
  const uint32_t n = std::min(mtu, w.length - std::min(w.length, offset));
  const bool uc = qp.init.type == QpType::kUc;
  uint8_t opcode = data_opcode(w.wr.opcode, w.next_packet, w.npsn);
  if (uc && ctx.decide.requester.uc_sends_uc_opcodes) {
    opcode |= wire::kOpTransportUc;  // MR-UC-05: RC's operation codes under UC's bits
  }
  const auto info = wire::opcode_info(opcode);
  wire::RocePacket p = ctx.factory.start(qp, opcode, psn);
  if (info->has(wire::kReth)) p.reth = wire::Reth{w.wr.remote_addr, w.wr.rkey, w.length};
  if (info->has(wire::kImmDt)) p.imm_dt = wire::ImmDt{w.wr.imm_data};
  if (info->has(wire::kIeth)) p.ieth = wire::Ieth{w.wr.invalidate_rkey};
  const bool last = info->is(wire::kEnd);
  if (w.wr.solicited && (last || !ctx.decide.requester.solicited_only_on_last) &&
      (info->is(wire::kSend) || info->is(wire::kImmediate))) {
    p.bth.solicited = 1;
  }
  if (uc) {
    p.bth.ackreq = 0;  // MR-UC-01: nothing will answer
  } else {
    add_ackreq_policy(qp, p, last, ctx);
  }
  const uint32_t from = ctx.decide.requester.gathers_beyond_64k ? offset : offset & 0xffff;
  ctx.send(p, PacketGather::of(qp, w, from, n, ctx.memory).pieces());
  ++w.next_packet;
  qp.next_psn = wire::psn_add(psn, 1);
}

// UC: a WQE completes once its last packet is on the wire; no ACK timer, no retransmission.
void complete_uc_wqe(QueuePair& qp, SendWqe& w, QpContext& ctx) {
  if (w.next_packet < w.npsn) return;
  w.completed = true;
  if (!w.wr.signaled) return;
  Completion c;
  c.wr_id = w.wr.wr_id;
  c.opcode = (w.wr.opcode == SendOpcode::kWrite || w.wr.opcode == SendOpcode::kWriteWithImm)
                 ? WcOpcode::kRdmaWrite
                 : WcOpcode::kSend;
  c.byte_len = w.length;
  c.qp_num = qp.qpn;
  ctx.complete_send(qp, c);
}

// Arms the local ACK timer when the first unacknowledged packet goes out (IBTA 9.7.6.1.3).
void arm_ack_timer(QueuePair& qp, const QpContext& ctx) {
  if (qp.retransmit_deadline_ns) return;
  const uint64_t t = ack_timeout_ns(qp.attr.timeout);
  if (t > 0) {
    qp.retransmit_deadline_ns = ctx.now_ns + (ctx.decide.requester.waits_full_timeout ? t : t / 2);
  } else if (!ctx.decide.requester.timeout_zero_never_retransmits) {
    qp.retransmit_deadline_ns = ctx.now_ns + 4'000'000;
  }
}

ReqState transmit(QueuePair& qp, Request& r, QpContext& ctx) {
  SendWqe& w = *r.wqe;
  const size_t first_frame = ctx.outbox.frames.size();
  start_wqe(qp, w, ctx);
  const uint32_t psn = wire::psn_add(w.first_psn, w.next_packet);
  switch (w.wr.opcode) {
    case SendOpcode::kRead:
      send_read_request(qp, w, psn, ctx);
      break;
    case SendOpcode::kCompareSwap:
    case SendOpcode::kFetchAdd:
      send_atomic(qp, w, psn, ctx);
      break;
    default:
      send_data_packet(qp, w, psn, ctx);
      break;
  }
  if (qp.rp) qp.rp->on_sent(ctx.now_ns, bytes_since(ctx, first_frame));
  if (w.next_packet >= w.npsn) ++qp.send_index;
  if (qp.init.type == QpType::kUc) {
    complete_uc_wqe(qp, w, ctx);
  } else {
    arm_ack_timer(qp, ctx);
  }
  return ReqState::kGetWqe;
}

}  // namespace

uint32_t packets_for(uint32_t length, uint32_t mtu) {
  return std::max<uint32_t>(1, (length + mtu - 1) / mtu);
}

void run_requester(QueuePair& qp, QpContext& ctx) {
  if (qp.init.type == QpType::kUd) return run_ud_requester(qp, ctx);
  if (qp.attr.state != QpState::kRts) return;  // MR-QS-08: requests only in RTS
  Request r;
  // Bounded: every step either transmits one packet or stops.
  for (int steps = 0; steps < 4096 && r.state != ReqState::kDone; ++steps) {
    ctx.step("requester", kReqStateNames[static_cast<size_t>(r.state)], qp.next_psn);
    switch (r.state) {
      case ReqState::kGetWqe:
        r.state = get_wqe(qp, r);
        break;
      case ReqState::kCheckLimits:
        r.state = check_limits(qp, r, ctx);
        break;
      case ReqState::kTransmit:
        r.state = transmit(qp, r, ctx);
        break;
      case ReqState::kDone:
        break;
    }
  }
  // UC WQEs are finished when sent: drop them from the queue the completer would use.
  while (qp.init.type == QpType::kUc && !qp.sq.empty() && qp.sq.front().completed) {
    qp.sq.pop_front();
    if (qp.send_index > 0) --qp.send_index;
  }
}

void rewind_requester(QueuePair& qp, uint32_t psn, const RequesterDecisions& decide) {
  for (size_t i = 0; i < qp.sq.size(); ++i) {
    SendWqe& w = qp.sq[i];
    if (!w.started) break;
    const int32_t d = wire::psn_diff(psn, w.first_psn);
    if (d >= 0 && d < static_cast<int32_t>(w.npsn)) {
      // READ: resume after the responses already placed; others: at the PSN itself.
      w.next_packet = w.wr.opcode == SendOpcode::kRead ? w.read_packets : static_cast<uint32_t>(d);
      qp.send_index = i;
      qp.next_psn = wire::psn_add(w.first_psn, w.next_packet);
      for (size_t j = i + 1; j < qp.sq.size(); ++j) {
        if (qp.sq[j].started && decide.rewinds_later_wqes) qp.sq[j].next_packet = 0;
      }
      return;
    }
  }
}

}  // namespace mr::transport
