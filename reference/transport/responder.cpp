#include "reference/transport/responder.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string_view>

#include "reference/memory/atomics.h"
#include "reference/transport/read_responses.h"
#include "reference/transport/receive_scatter.h"
#include "reference/transport/requester.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"

namespace mr::transport {
namespace {

using wire::OpcodeInfo;

enum class RespState : uint8_t {
  kCheckPsn,
  kCheckOpSequence,
  kCheckOpValid,
  kCheckResource,
  kCheckLength,
  kCheckRkey,
  kExecute,
  kReadReply,
  kAtomicReply,
  kAcknowledge,
  kDuplicate,
  kErrorPsnOutOfSequence,  // Class B: NAK PSN sequence error
  kErrorRnr,               // Class B: RNR NAK
  kErrorInvalidRequest,    // Class C: NAK invalid request, QP to Error
  kErrorRemoteAccess,      // Class C: NAK remote access error, QP to Error
  kErrorRemoteOperation,   // Class A: NAK remote operational error, QP to Error
  kUcDropMessage,          // UC Class D1/E: silently drop the message, stay operational
  kDone,
};

// The states' names for the step trace, in the enum's order.
constexpr std::string_view kRespStateNames[] = {"CheckPsn",          "CheckOpSequence",
                                                "CheckOpValid",      "CheckResource",
                                                "CheckLength",       "CheckRkey",
                                                "Execute",           "ReadReply",
                                                "AtomicReply",       "Acknowledge",
                                                "Duplicate",         "ErrorPsnOutOfSequence",
                                                "ErrorRnr",          "ErrorInvalidRequest",
                                                "ErrorRemoteAccess", "ErrorRemoteOperation",
                                                "UcDropMessage",     "Done"};
static_assert(std::size(kRespStateNames) == static_cast<size_t>(RespState::kDone) + 1);

constexpr uint64_t kMaxDmaLength = uint64_t{1} << 31;  // C9-94

struct Request {
  const wire::RocePacket& p;
  const OpcodeInfo& info;
  uint32_t psn;
  RespState state = RespState::kCheckPsn;
  std::span<uint8_t> target;  // resolved remote memory for WRITE/READ/ATOMIC
};

uint32_t msn_of(const QueuePair& qp, QpContext& ctx) {
  return (qp.msn + (ctx.decide.responder.reports_true_msn ? 0 : 1)) & wire::u24::kMax;
}

void send_ack(QueuePair& qp, uint32_t psn, uint8_t syndrome, QpContext& ctx) {
  wire::RocePacket ack = ctx.factory.start(qp, wire::kOpRcAcknowledge, psn);
  ack.aeth = wire::Aeth{syndrome, msn_of(qp, ctx)};
  if (!ctx.decide.responder.acks_plain) {
    ack.bth.solicited = 1;
    ack.bth.ackreq = 1;
  }
  ctx.send(ack);
}

// UC (rxe check_psn for IB_QPT_UC): a PSN other than the expected one means packets were
// lost; the open message is dropped and the receiver waits for the next FIRST or ONLY.
// A receive WQE the abandoned message had taken goes back to the head of its queue, so
// no completion is made for a message that did not arrive whole.
void abandon_open_message(QueuePair& qp, QpContext& ctx) {
  if (qp.open.kind == OpenMessage::Kind::kSend && qp.open.rwqe) {
    ctx.receive_queue(qp).push_front(*qp.open.rwqe);
  }
  qp.open = OpenMessage{};
}

RespState check_psn_uc(QueuePair& qp, Request& r, QpContext& ctx) {
  const bool gap =
      wire::psn_diff(r.psn, qp.epsn) != 0 && ctx.decide.responder.uc_drops_message_after_gap;
  qp.epsn = wire::psn_add(r.psn, 1);
  if (!gap && !qp.uc_drop_message) return RespState::kCheckOpSequence;
  abandon_open_message(qp, ctx);
  if (r.info.is(wire::kStart)) {
    qp.uc_drop_message = false;
    return RespState::kCheckOpSequence;
  }
  return RespState::kUcDropMessage;  // MR-UC-02
}

RespState check_psn(QueuePair& qp, Request& r, QpContext& ctx) {
  if (qp.init.type == QpType::kUc) return check_psn_uc(qp, r, ctx);
  const int32_t d = wire::psn_diff(r.psn, qp.epsn);
  if (d == 0) return RespState::kCheckOpSequence;
  if (d < 0) return RespState::kDuplicate;
  if (!ctx.decide.responder.refuses_psn_ahead) {
    qp.epsn = r.psn;
    return RespState::kCheckOpSequence;
  }
  ++ctx.counters.out_of_seq_request;
  return RespState::kErrorPsnOutOfSequence;
}

RespState check_op_sequence(QueuePair& qp, Request& r) {
  const bool start = r.info.is(wire::kStart);
  const auto open = qp.open.kind;
  if (open == OpenMessage::Kind::kNone) {
    return start ? RespState::kCheckOpValid : RespState::kErrorInvalidRequest;  // missing FIRST
  }
  // UC: a FIRST or ONLY abandons an open message (its tail was lost).
  if (start && qp.init.type == QpType::kUc) return RespState::kUcDropMessage;
  // A message is open: only its MIDDLE or LAST may follow (missing LAST otherwise).
  const bool same = (open == OpenMessage::Kind::kSend && r.info.is(wire::kSend)) ||
                    (open == OpenMessage::Kind::kWrite && r.info.is(wire::kWrite));
  if (start || !same) return RespState::kErrorInvalidRequest;
  return RespState::kCheckOpValid;
}

RespState check_op_valid(QueuePair& qp, Request& r) {
  const uint32_t access = qp.attr.access_flags;
  if (r.info.is(wire::kWrite) && !(access & kQpRemoteWrite)) return RespState::kErrorInvalidRequest;
  if (r.info.is(wire::kRead) && !(access & kQpRemoteRead)) return RespState::kErrorInvalidRequest;
  if (r.info.is(wire::kAtomic) && !(access & kQpRemoteAtomic))
    return RespState::kErrorInvalidRequest;
  // FLUSH and ATOMIC WRITE (IBTA 1.5) are not claimed: an invalid request.
  if (r.info.is(wire::kFlush) || (r.info.is(wire::kAtomic) && !r.p.atomic_eth)) {
    return RespState::kErrorInvalidRequest;
  }
  return RespState::kCheckResource;
}

RespState check_resource(QueuePair& qp, Request& r, QpContext& ctx) {
  if (r.info.is(wire::kRead) || r.info.is(wire::kAtomic)) {
    if (qp.attr.max_dest_rd_atomic == 0) return RespState::kErrorInvalidRequest;
    return RespState::kCheckLength;
  }
  // A SEND, or a WRITE with immediate, consumes a receive WQE at its start (FIRST/ONLY for
  // SEND, the LAST/ONLY packet carrying ImmDt for WRITE).
  const bool needs_rwqe = (r.info.is(wire::kSend) && r.info.is(wire::kStart)) ||
                          (r.info.is(wire::kWrite) && r.info.is(wire::kImmediate)) ||
                          (!ctx.decide.responder.rnr_nak_only_for_send && r.info.is(wire::kWrite) &&
                           r.info.is(wire::kStart));
  if (needs_rwqe && ctx.receive_queue(qp).empty()) {
    return ctx.decide.responder.sends_rnr_nak ? RespState::kErrorRnr : RespState::kDone;
  }
  return RespState::kCheckLength;
}

RespState check_length(QueuePair& qp, Request& r) {
  const uint32_t mtu = qp.attr.path_mtu;
  const size_t n = r.p.payload.size();
  // C9-92: FIRST/MIDDLE exactly PMTU, LAST 1..PMTU, ONLY 0..PMTU.
  if ((r.info.is(wire::kFirst) || r.info.is(wire::kMiddle)) && n != mtu)
    return RespState::kErrorInvalidRequest;
  if (r.info.is(wire::kLast) && (n == 0 || n > mtu)) return RespState::kErrorInvalidRequest;
  if (r.info.is(wire::kOnly) && n > mtu) return RespState::kErrorInvalidRequest;
  if (r.p.reth && r.p.reth->dlen > kMaxDmaLength) return RespState::kErrorInvalidRequest;
  if (r.info.is(wire::kWrite)) {
    // The packets of a WRITE must add up to its DMA length (MR-MP-07).
    const uint64_t remaining = r.info.is(wire::kStart) ? r.p.reth->dlen.value() : qp.open.remaining;
    if (r.info.is(wire::kEnd) ? n != remaining : n >= remaining)
      return RespState::kErrorInvalidRequest;
  }
  return RespState::kCheckRkey;
}

RespState rkey_error(QpContext& ctx) {
  return ctx.decide.responder.naks_rkey_error_as_remote_access ? RespState::kErrorRemoteAccess
                                                               : RespState::kErrorInvalidRequest;
}

// Resolves [va, va+len) under rkey for `access`, as the memory-protection decisions say.
Expected<std::span<uint8_t>, memory::AccessError> resolve(QueuePair& qp, uint32_t rkey, uint64_t va,
                                                          uint64_t len, uint32_t access,
                                                          QpContext& ctx) {
  if (len == 0 && ctx.decide.responder.zero_length_skips_rkey) {
    return std::span<uint8_t>();  // MR-MP-06, MR-RD-04: zero length needs no valid key
  }
  // A device that does not check the range's end checks one byte less, but never zero bytes:
  // a zero-length check resolves to no memory, and the 1-byte access would then write through
  // a null span.
  const uint64_t checked_len =
      !ctx.decide.responder.checks_rkey_range && len > 1 ? len - 1 : std::max<uint64_t>(len, 1);
  uint32_t pd = qp.init.pd;
  const uint32_t required = ctx.decide.responder.checks_mr_access ? access : 0;
  auto span = ctx.memory.resolve_remote(rkey, pd, va, checked_len, required);
  if (!span && span.error() == memory::AccessError::kWrongPd &&
      !ctx.decide.responder.checks_rkey_pd) {
    if (auto owner = ctx.memory.rkey_pd(rkey)) {
      span = ctx.memory.resolve_remote(rkey, *owner, va, checked_len, required);
    }
  }
  if (!span) return span;
  if (len == 0) return std::span<uint8_t>();
  // A device that accepts more than the region holds still never touches memory outside it:
  // the broken device is seen on the wire (an ACK instead of a remote access NAK), not as a
  // crash.
  return std::span<uint8_t>(span->data(), std::min<uint64_t>(len, span->size()));
}

RespState check_rkey(QueuePair& qp, Request& r, QpContext& ctx) {
  if (r.info.is(wire::kWrite) && r.info.is(wire::kStart)) {
    auto span =
        resolve(qp, r.p.reth->rkey, r.p.reth->va, r.p.reth->dlen, memory::kRemoteWrite, ctx);
    if (!span) return rkey_error(ctx);
    r.target = *span;
  } else if (r.info.is(wire::kRead)) {
    auto span = resolve(qp, r.p.reth->rkey, r.p.reth->va, r.p.reth->dlen, memory::kRemoteRead, ctx);
    if (!span) return rkey_error(ctx);
    r.target = *span;
  } else if (r.info.is(wire::kAtomic)) {
    const auto& a = *r.p.atomic_eth;
    if (a.va % 8 != 0 && ctx.decide.responder.refuses_misaligned_atomic) {
      return RespState::kErrorInvalidRequest;  // MR-AT-03
    }
    auto span = resolve(qp, a.rkey, a.va, 8, memory::kRemoteAtomic, ctx);
    if (!span) return rkey_error(ctx);
    r.target = *span;
  }
  return RespState::kExecute;
}

void complete_receive(QueuePair& qp, Request& r, WcOpcode opcode, uint32_t byte_len,
                      QpContext& ctx) {
  Completion c;
  c.wr_id = qp.open.rwqe ? qp.open.rwqe->wr_id : 0;
  c.opcode = opcode;
  c.byte_len = byte_len;
  c.qp_num = qp.qpn;
  c.solicited = r.p.bth.solicited != 0;
  if (r.p.imm_dt) {
    const uint32_t imm = r.p.imm_dt->imm.value();
    c.imm_data = ctx.decide.completion.immediate_in_host_order ? imm : __builtin_bswap32(imm);
  }
  if (r.p.ieth) c.invalidated_rkey = r.p.ieth->rkey.value();
  ctx.complete_recv(c);
  ++ctx.counters.rdma_recvs;
}

// A SEND that consumed a receive WQE and then failed does not lose it. RC completes it with
// the error (MR-CQ-06, ibv_poll_cq(3)), the receive queue's first completion, ahead of the
// ones the QP's Error state then flushes. UC leaves it open: dropping the message puts the
// WQE back for the next one (abandon_open_message), as rxe's class D1 does.
RespState fail_receive(QueuePair& qp, WcStatus status, RespState error, QpContext& ctx) {
  if (qp.init.type == QpType::kUc) return error;
  if (qp.open.rwqe && ctx.decide.responder.completes_failed_receive) {
    Completion c;
    c.wr_id = qp.open.rwqe->wr_id;
    c.status = status;
    c.opcode = WcOpcode::kRecv;
    c.byte_len = qp.open.received;
    c.qp_num = qp.qpn;
    ctx.complete_recv(c);
  }
  qp.open = OpenMessage{};
  return error;
}

RespState execute_send(QueuePair& qp, Request& r, QpContext& ctx) {
  if (r.info.is(wire::kStart)) {
    auto& rq = ctx.receive_queue(qp);
    qp.open = OpenMessage{};
    qp.open.kind = OpenMessage::Kind::kSend;
    qp.open.rwqe = rq.front();
    rq.pop_front();
  }
  const RecvWr& rwqe = *qp.open.rwqe;
  auto data = r.p.payload;
  if (qp.open.received + data.size() > receive_capacity(rwqe)) {
    if (ctx.decide.responder.fails_long_send)
      return fail_receive(qp, WcStatus::kLocalLengthError, RespState::kErrorInvalidRequest, ctx);
    data = data.first(receive_capacity(rwqe) -
                      std::min<uint64_t>(receive_capacity(rwqe), qp.open.received));
  }
  const uint32_t at =
      ctx.decide.responder.places_send_beyond_64k ? qp.open.received : qp.open.received & 0xffff;
  if (!scatter_to_receive_wqe(qp, rwqe, at, data, ctx))
    return fail_receive(qp, WcStatus::kLocalProtectionError, RespState::kErrorRemoteOperation, ctx);
  qp.open.received += static_cast<uint32_t>(data.size());
  if (r.info.is(wire::kEnd)) {
    if (r.p.ieth && ctx.decide.responder.invalidates_on_send_with_invalidate) {
      // MR-MP-09: invalidate after the message; a key that cannot be invalidated is an error.
      if (!ctx.memory.invalidate_rkey(r.p.ieth->rkey, qp.init.pd))
        return fail_receive(qp, WcStatus::kRemoteInvalidRequestError,
                            RespState::kErrorInvalidRequest, ctx);
    }
    complete_receive(qp, r, WcOpcode::kRecv, qp.open.received, ctx);
    qp.open = OpenMessage{};
    qp.msn = (qp.msn + 1) & wire::u24::kMax;
  }
  return RespState::kAcknowledge;
}

// Where the next WRITE payload goes: the VA after the message's bytes so far.
uint64_t write_address(const QueuePair& qp, const QpContext& ctx) {
  if (ctx.decide.responder.places_write_beyond_64k) return qp.open.va;
  const uint64_t start = qp.open.va - qp.open.received;
  return start + (qp.open.received & 0xffff);
}

RespState execute_write(QueuePair& qp, Request& r, QpContext& ctx) {
  if (r.info.is(wire::kStart)) {
    qp.open = OpenMessage{};
    qp.open.kind = OpenMessage::Kind::kWrite;
    qp.open.va = r.p.reth->va;
    qp.open.rkey = r.p.reth->rkey;
    qp.open.remaining = r.p.reth->dlen;
    qp.open.received = 0;
    qp.open.rwqe.reset();
  }
  const auto data = r.p.payload;
  if (!data.empty()) {
    // Later packets reuse the MR resolved at FIRST (rxe keeps the MR reference).
    auto dst = r.info.is(wire::kStart) ? Expected<std::span<uint8_t>, memory::AccessError>(r.target)
                                       : resolve(qp, qp.open.rkey, write_address(qp, ctx),
                                                 data.size(), memory::kRemoteWrite, ctx);
    if (!dst) return rkey_error(ctx);
    std::memcpy(dst->data(), data.data(), std::min(dst->size(), data.size()));
  }
  qp.open.va += data.size();
  qp.open.received += static_cast<uint32_t>(data.size());
  qp.open.remaining -= static_cast<uint32_t>(data.size());
  if (r.info.is(wire::kEnd)) {
    const uint32_t total = qp.open.received;
    if (r.info.is(wire::kImmediate)) {
      auto& rq = ctx.receive_queue(qp);
      qp.open.rwqe = rq.front();
      rq.pop_front();
      complete_receive(qp, r, WcOpcode::kRecvRdmaWithImm, total, ctx);
    }
    qp.open = OpenMessage{};
    qp.msn = (qp.msn + 1) & wire::u24::kMax;
  }
  return RespState::kAcknowledge;
}

void remember(QueuePair& qp, const ResponderResource& res, const QpContext& ctx) {
  // Only max_dest_rd_atomic resources are held; the oldest is recycled (rxe's ring).
  const uint32_t held = ctx.decide.responder.holds_max_dest_rd_atomic
                            ? std::max<uint32_t>(1, qp.attr.max_dest_rd_atomic)
                            : 1;
  if (qp.resources.size() >= held) qp.resources.pop_front();
  qp.resources.push_back(res);
}

RespState execute(QueuePair& qp, Request& r, QpContext& ctx) {
  // An in-sequence packet ends the sequence error (MR-PS-06) and the RNR episode.
  if (ctx.decide.responder.rearms_sequence_nak) qp.sent_psn_nak = false;
  qp.rnr_nak_outstanding = false;
  if (r.info.is(wire::kSend)) return execute_send(qp, r, ctx);
  if (r.info.is(wire::kWrite)) return execute_write(qp, r, ctx);
  if (r.info.is(wire::kRead)) return RespState::kReadReply;
  if (r.info.is(wire::kAtomic)) return RespState::kAtomicReply;
  return RespState::kErrorInvalidRequest;
}

RespState read_reply(QueuePair& qp, Request& r, QpContext& ctx) {
  const auto& reth = *r.p.reth;
  const uint32_t npsn = packets_for(reth.dlen, qp.attr.path_mtu);
  remember(qp,
           ResponderResource{ResponderResource::Kind::kRead, r.psn, wire::psn_add(r.psn, npsn - 1),
                             reth.va, reth.rkey, reth.dlen, 0},
           ctx);
  qp.msn = (qp.msn + 1) & wire::u24::kMax;  // C9-148: a READ counts when executed
  qp.epsn = wire::psn_add(r.psn, npsn);
  send_read_responses(qp, {r.psn, reth.va, reth.rkey, reth.dlen, msn_of(qp, ctx)}, ctx);
  return RespState::kDone;
}

RespState atomic_reply(QueuePair& qp, Request& r, QpContext& ctx) {
  const auto& a = *r.p.atomic_eth;
  uint64_t original = 0;
  if (a.va % 8 != 0 && !ctx.decide.responder.refuses_misaligned_atomic) {
    // The broken device executes the misaligned operation, and not even atomically.
    uint64_t value = 0;
    std::memcpy(&value, r.target.data(), 8);
    original = value;
    if (r.p.bth.opcode == wire::kOpRcCompareSwap) {
      if (value == a.comp) value = a.swap;
    } else {
      value += a.swap;
    }
    std::memcpy(r.target.data(), &value, 8);
  } else if (r.p.bth.opcode == wire::kOpRcCompareSwap) {
    const uint64_t swap = a.swap;
    uint64_t compare = a.comp;
    if (!ctx.decide.responder.compare_swap_compares) std::memcpy(&compare, r.target.data(), 8);
    auto res = memory::atomic_compare_swap(r.target, compare, swap);
    if (!res) return RespState::kErrorInvalidRequest;
    original = *res;
  } else {
    auto res = memory::atomic_fetch_add(r.target, a.swap);
    if (!res) return RespState::kErrorInvalidRequest;
    original = *res;
    if (!ctx.decide.responder.fetch_add_returns_original) original += a.swap;
  }
  remember(
      qp,
      ResponderResource{ResponderResource::Kind::kAtomic, r.psn, r.psn, a.va, a.rkey, 8, original},
      ctx);
  qp.msn = (qp.msn + 1) & wire::u24::kMax;
  qp.epsn = wire::psn_add(r.psn, 1);
  wire::RocePacket ack = ctx.factory.start(qp, wire::kOpRcAtomicAcknowledge, r.psn);
  ack.aeth = wire::Aeth{wire::kSyndromeAck, msn_of(qp, ctx)};
  ack.atomic_ack_eth = wire::AtomicAckEth{original};
  ctx.send(ack);
  return RespState::kDone;
}

RespState acknowledge(QueuePair& qp, Request& r, QpContext& ctx) {
  qp.epsn = wire::psn_add(r.psn, 1);
  // MR-UC-01: a UC responder never acknowledges, whatever AckReq says.
  if (qp.init.type == QpType::kUc && ctx.decide.responder.uc_silent) return RespState::kDone;
  if (r.p.bth.ackreq) {
    if (!ctx.decide.responder.acks_every_ackreq && r.p.bth.opcode == wire::kOpRcSendOnly)
      return RespState::kDone;
    const uint32_t psn =
        ctx.decide.responder.ack_carries_request_psn ? r.psn : wire::psn_add(r.psn, 1);
    send_ack(qp, psn, wire::kSyndromeAck, ctx);
  }
  return RespState::kDone;
}

RespState duplicate(QueuePair& qp, Request& r, QpContext& ctx) {
  ++ctx.counters.duplicate_request;
  if (r.info.is(wire::kRead)) {
    if (!ctx.decide.responder.answers_duplicate_read) return RespState::kDone;
    for (const auto& res : qp.resources) {
      if (res.kind != ResponderResource::Kind::kRead) continue;
      const int32_t into = wire::psn_diff(r.psn, res.first_psn);
      if (into < 0 || wire::psn_diff(r.psn, res.last_psn) > 0) continue;
      // MR-RD-07/08: the same READ or a sub-range of it, same R_Key: execute again from
      // current memory, responses from the duplicate's PSN, starting with FIRST/ONLY.
      const auto& reth = *r.p.reth;
      const uint64_t end = res.va + res.length;
      if (reth.rkey != res.rkey || reth.va < res.va || reth.va + reth.dlen > end)
        return RespState::kDone;
      send_read_responses(qp, {r.psn, reth.va, reth.rkey, reth.dlen, msn_of(qp, ctx)}, ctx);
      return RespState::kDone;
    }
    return RespState::kDone;  // resource recycled: silently dropped (Class D)
  }
  if (r.info.is(wire::kAtomic)) {
    for (const auto& res : qp.resources) {
      if (res.kind != ResponderResource::Kind::kAtomic || res.first_psn != r.psn) continue;
      if (!ctx.decide.responder.replays_saved_atomic) {
        r.state = RespState::kCheckRkey;
        const auto saved = qp.epsn;
        auto st = check_rkey(qp, r, ctx);
        if (st == RespState::kExecute) atomic_reply(qp, r, ctx);
        qp.epsn = saved;
        return RespState::kDone;
      }
      wire::RocePacket ack = ctx.factory.start(qp, wire::kOpRcAtomicAcknowledge, r.psn);
      ack.aeth = wire::Aeth{wire::kSyndromeAck, msn_of(qp, ctx)};
      ack.atomic_ack_eth = wire::AtomicAckEth{res.original};
      ctx.send(ack);  // MR-AT-04: the saved value, no second execution
      return RespState::kDone;
    }
    return RespState::kDone;
  }
  if (!ctx.decide.responder.executes_duplicate_write_once && r.info.is(wire::kWrite) && r.p.reth) {
    auto dst =
        resolve(qp, r.p.reth->rkey, r.p.reth->va, r.p.payload.size(), memory::kRemoteWrite, ctx);
    if (dst && !r.p.payload.empty())
      std::memcpy(dst->data(), r.p.payload.data(), std::min(dst->size(), r.p.payload.size()));
  }
  // MR-AK-11: a duplicate SEND/WRITE is not executed again and draws an ACK for ePSN - 1.
  const uint32_t psn = ctx.decide.responder.duplicate_ack_carries_epsn_minus_one
                           ? wire::psn_add(qp.epsn, -1)
                           : r.psn;
  send_ack(qp, psn, wire::kSyndromeAck, ctx);
  return RespState::kDone;
}

RespState error_psn_out_of_sequence(QueuePair& qp, Request& r, QpContext& ctx) {
  // MR-PS-04/05: one NAK per sequence error, carrying ePSN; MR-RN-07: none while an RNR
  // NAK is outstanding. Either way the packet is not executed.
  const bool may_nak = !qp.sent_psn_nak || !ctx.decide.responder.one_nak_per_sequence_error;
  if (may_nak && !qp.rnr_nak_outstanding) {
    const uint32_t psn = ctx.decide.responder.sequence_nak_carries_epsn ? qp.epsn : r.psn;
    send_ack(qp, psn, wire::kNakPsnSequenceError, ctx);
    qp.sent_psn_nak = true;
  }
  return RespState::kDone;
}

RespState error_rnr(QueuePair& qp, Request& r, QpContext& ctx) {
  ++ctx.counters.send_rnr_err;
  send_ack(qp, r.psn, wire::rnr_nak(qp.attr.min_rnr_timer), ctx);
  qp.rnr_nak_outstanding = true;
  if (!ctx.decide.responder.rnr_nak_keeps_epsn) qp.epsn = wire::psn_add(r.psn, 1);
  return RespState::kDone;
}

// UC Class D1/E (rxe do_class_d1e_error): drop the open message without a trace and
// ignore the packets up to the next FIRST or ONLY (MR-UC-02..04).
RespState uc_drop_message(QueuePair& qp, QpContext& ctx) {
  abandon_open_message(qp, ctx);
  qp.uc_drop_message = true;
  ++ctx.counters.dropped_transport;
  return RespState::kDone;
}

RespState fatal(QueuePair& qp, Request& r, uint8_t syndrome, QpContext& ctx) {
  // MR-AK-15: the NAK carries the offending packet's PSN; then the QP is in Error (MR-MP-10).
  send_ack(qp, r.psn, syndrome, ctx);
  enter_error(qp, ctx);
  return RespState::kDone;
}

}  // namespace

void respond(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  const auto* info = wire::opcode_info(p.bth.opcode);
  if (info == nullptr) return;
  Request r{p, *info, p.bth.psn.value(), RespState::kCheckPsn, {}};
  const bool uc = qp.init.type == QpType::kUc;
  // RC: a fatal error NAKs and ends the QP; UC drops the message and stays operational.
  auto uc_error = [&](Request& req, uint8_t syndrome) {
    if (!uc) return fatal(qp, req, syndrome, ctx);
    if (syndrome == wire::kNakInvalidRequest && !ctx.decide.responder.uc_silent_on_stray_middle &&
        !req.info.is(wire::kStart)) {
      enter_error(qp, ctx);
      return RespState::kDone;
    }
    if (syndrome == wire::kNakRemoteAccessError && !ctx.decide.responder.uc_silent_on_rkey_error)
      send_ack(qp, req.psn, syndrome, ctx);
    return uc_drop_message(qp, ctx);
  };
  for (int steps = 0; steps < 32 && r.state != RespState::kDone; ++steps) {
    ctx.step("responder", kRespStateNames[static_cast<size_t>(r.state)], r.psn);
    switch (r.state) {
      case RespState::kCheckPsn:
        r.state = check_psn(qp, r, ctx);
        break;
      case RespState::kCheckOpSequence:
        r.state = check_op_sequence(qp, r);
        break;
      case RespState::kCheckOpValid:
        r.state = check_op_valid(qp, r);
        break;
      case RespState::kCheckResource:
        r.state = check_resource(qp, r, ctx);
        break;
      case RespState::kCheckLength:
        r.state = check_length(qp, r);
        break;
      case RespState::kCheckRkey:
        r.state = check_rkey(qp, r, ctx);
        break;
      case RespState::kExecute:
        r.state = execute(qp, r, ctx);
        break;
      case RespState::kReadReply:
        r.state = read_reply(qp, r, ctx);
        break;
      case RespState::kAtomicReply:
        r.state = atomic_reply(qp, r, ctx);
        break;
      case RespState::kAcknowledge:
        r.state = acknowledge(qp, r, ctx);
        break;
      case RespState::kDuplicate:
        r.state = duplicate(qp, r, ctx);
        break;
      case RespState::kErrorPsnOutOfSequence:
        r.state = error_psn_out_of_sequence(qp, r, ctx);
        break;
      case RespState::kErrorRnr:
        r.state = uc ? uc_drop_message(qp, ctx) : error_rnr(qp, r, ctx);
        break;
      case RespState::kErrorInvalidRequest:
        r.state = uc_error(r, wire::kNakInvalidRequest);
        break;
      case RespState::kErrorRemoteAccess:
        r.state = uc_error(r, wire::kNakRemoteAccessError);
        break;
      case RespState::kErrorRemoteOperation:
        r.state = uc_error(r, wire::kNakRemoteOperationalError);
        break;
      case RespState::kUcDropMessage:
        r.state = uc_drop_message(qp, ctx);
        break;
      case RespState::kDone:
        break;
    }
  }
}

}  // namespace mr::transport
