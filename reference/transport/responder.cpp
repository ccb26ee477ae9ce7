#include "reference/transport/responder.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "reference/memory/atomics.h"
#include "reference/transport/receive_scatter.h"
#include "reference/transport/requester.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"

namespace mr::transport {
namespace {

using mutants::Mutant;
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

constexpr uint64_t kMaxDmaLength = uint64_t{1} << 31;  // C9-94

struct Request {
  const wire::RocePacket& p;
  const OpcodeInfo& info;
  uint32_t psn;
  RespState state = RespState::kCheckPsn;
  std::span<uint8_t> target;  // resolved remote memory for WRITE/READ/ATOMIC
};

uint32_t msn_of(const QueuePair& qp, QpContext& ctx) {
  return (qp.msn + (ctx.mutants.active(Mutant::kWrongMsn) ? 1 : 0)) & wire::u24::kMax;
}

void send_ack(QueuePair& qp, uint32_t psn, uint8_t syndrome, QpContext& ctx) {
  wire::RocePacket ack = ctx.factory.start(qp, wire::kOpRcAcknowledge, psn);
  ack.aeth = wire::Aeth{syndrome, msn_of(qp, ctx)};
  if (ctx.mutants.active(Mutant::kAckWithSolicited)) {
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
      wire::psn_diff(r.psn, qp.epsn) != 0 && !ctx.mutants.active(Mutant::kUcKeepsMessageAfterGap);
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
  if (ctx.mutants.active(Mutant::kExecuteAheadOfSequence)) {
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
                          (ctx.mutants.active(Mutant::kRnrNakForWrite) && r.info.is(wire::kWrite) &&
                           r.info.is(wire::kStart));
  if (needs_rwqe && ctx.receive_queue(qp).empty()) {
    return ctx.mutants.active(Mutant::kNoRnrNak) ? RespState::kDone : RespState::kErrorRnr;
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
  return ctx.mutants.active(Mutant::kRemoteAccessNakAsInvalid) ? RespState::kErrorInvalidRequest
                                                               : RespState::kErrorRemoteAccess;
}

// Resolves [va, va+len) under rkey for `access`, with the memory-protection mutants.
Expected<std::span<uint8_t>, memory::AccessError> resolve(QueuePair& qp, uint32_t rkey, uint64_t va,
                                                          uint64_t len, uint32_t access,
                                                          QpContext& ctx) {
  if (len == 0 && !ctx.mutants.active(Mutant::kZeroLengthReadChecksRkey)) {
    return std::span<uint8_t>();  // MR-MP-06, MR-RD-04: zero length needs no valid key
  }
  // The off-by-one mutant checks one byte less, but never zero bytes: a zero-length check
  // resolves to no memory, and the 1-byte access would then write through a null span.
  const uint64_t checked_len = ctx.mutants.active(Mutant::kRkeyRangeOffByOne) && len > 1
                                   ? len - 1
                                   : std::max<uint64_t>(len, 1);
  uint32_t pd = qp.init.pd;
  const uint32_t required = ctx.mutants.active(Mutant::kMrAccessNotChecked) ? 0 : access;
  auto span = ctx.memory.resolve_remote(rkey, pd, va, checked_len, required);
  if (!span && span.error() == memory::AccessError::kWrongPd &&
      ctx.mutants.active(Mutant::kRkeyPdNotChecked)) {
    if (auto owner = ctx.memory.rkey_pd(rkey)) {
      span = ctx.memory.resolve_remote(rkey, *owner, va, checked_len, required);
    }
  }
  if (!span) return span;
  if (len == 0) return std::span<uint8_t>();
  // A mutant that accepts more than the region holds still never touches memory outside it:
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
    if (a.va % 8 != 0 && !ctx.mutants.active(Mutant::kMisalignedAtomicAccepted)) {
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
    c.imm_data = ctx.mutants.active(Mutant::kImmediateByteSwapped) ? __builtin_bswap32(imm) : imm;
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
  if (qp.open.rwqe && !ctx.mutants.active(Mutant::kReceiveWqeLostOnError)) {
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
    if (!ctx.mutants.active(Mutant::kLongSendTruncated))
      return fail_receive(qp, WcStatus::kLocalLengthError, RespState::kErrorInvalidRequest, ctx);
    data = data.first(receive_capacity(rwqe) -
                      std::min<uint64_t>(receive_capacity(rwqe), qp.open.received));
  }
  const uint32_t at = ctx.mutants.active(Mutant::kSendPlacementWrapsAt64k)
                          ? qp.open.received & 0xffff
                          : qp.open.received;
  if (!scatter_to_receive_wqe(qp, rwqe, at, data, ctx))
    return fail_receive(qp, WcStatus::kLocalProtectionError, RespState::kErrorRemoteOperation, ctx);
  qp.open.received += static_cast<uint32_t>(data.size());
  if (r.info.is(wire::kEnd)) {
    if (r.p.ieth && !ctx.mutants.active(Mutant::kSendWithInvalidateIgnored)) {
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
  if (!ctx.mutants.active(Mutant::kWritePlacementWrapsAt64k)) return qp.open.va;
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
  const uint32_t held = ctx.mutants.active(Mutant::kReadResourcesHoldOne)
                            ? 1
                            : std::max<uint32_t>(1, qp.attr.max_dest_rd_atomic);
  if (qp.resources.size() >= held) qp.resources.pop_front();
  qp.resources.push_back(res);
}

RespState execute(QueuePair& qp, Request& r, QpContext& ctx) {
  // An in-sequence packet ends the sequence error (MR-PS-06) and the RNR episode.
  if (!ctx.mutants.active(Mutant::kSequenceNakNeverRearmed)) qp.sent_psn_nak = false;
  qp.rnr_nak_outstanding = false;
  if (r.info.is(wire::kSend)) return execute_send(qp, r, ctx);
  if (r.info.is(wire::kWrite)) return execute_write(qp, r, ctx);
  if (r.info.is(wire::kRead)) return RespState::kReadReply;
  if (r.info.is(wire::kAtomic)) return RespState::kAtomicReply;
  return RespState::kErrorInvalidRequest;
}

// Sends the READ responses for [va, va+len) starting at `psn` (MR-RD-01..03).
void send_read_responses(QueuePair& qp, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len,
                         QpContext& ctx) {
  const uint32_t mtu = qp.attr.path_mtu;
  const uint32_t count = packets_for(len, mtu);
  if (ctx.mutants.active(Mutant::kReadResponsePsnOffset)) psn = wire::psn_add(psn, 1);
  uint32_t offset = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t n = std::min(mtu, len - offset);
    uint8_t opcode = count == 1       ? wire::kOpRcRdmaReadResponseOnly
                     : i == 0         ? wire::kOpRcRdmaReadResponseFirst
                     : i + 1 == count ? wire::kOpRcRdmaReadResponseLast
                                      : wire::kOpRcRdmaReadResponseMiddle;
    if (opcode == wire::kOpRcRdmaReadResponseFirst && ctx.mutants.active(Mutant::kReadFirstShort)) {
      n -= 4;
    }
    wire::RocePacket p = ctx.factory.start(qp, opcode, wire::psn_add(psn, i));
    if (opcode != wire::kOpRcRdmaReadResponseMiddle ||
        ctx.mutants.active(Mutant::kReadMiddleWithAeth)) {
      p.aeth = wire::Aeth{wire::kSyndromeAck, msn_of(qp, ctx)};
      // The mutant sends FIRST-shaped middles.
      if (opcode == wire::kOpRcRdmaReadResponseMiddle)
        p.bth.opcode = wire::kOpRcRdmaReadResponseFirst;
    }
    // MR-MP-11: every response re-validates the R_Key against current memory.
    std::span<const uint8_t> data;
    if (n > 0) {
      const uint64_t at =
          va +
          (ctx.mutants.active(Mutant::kReadResponseOffsetWrapsAt64k) ? offset & 0xffff : offset);
      auto src = ctx.memory.resolve_remote(rkey, qp.init.pd, at, n, memory::kRemoteRead);
      if (!src && !ctx.mutants.active(Mutant::kMrAccessNotChecked) &&
          !ctx.mutants.active(Mutant::kRkeyPdNotChecked) &&
          !ctx.mutants.active(Mutant::kRkeyRangeOffByOne)) {
        wire::RocePacket nak = ctx.factory.start(qp, wire::kOpRcAcknowledge, wire::psn_add(psn, i));
        nak.aeth = wire::Aeth{wire::kNakRemoteAccessError, msn_of(qp, ctx)};
        ctx.send(nak);
        enter_error(qp, ctx);
        return;
      }
      if (src) data = std::span<const uint8_t>(src->data(), n);
    }
    p.payload = data;
    ctx.send(p);
    offset += n;
  }
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
  send_read_responses(qp, r.psn, reth.va, reth.rkey, reth.dlen, ctx);
  return RespState::kDone;
}

RespState atomic_reply(QueuePair& qp, Request& r, QpContext& ctx) {
  const auto& a = *r.p.atomic_eth;
  uint64_t original = 0;
  if (a.va % 8 != 0 && ctx.mutants.active(Mutant::kMisalignedAtomicAccepted)) {
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
    if (ctx.mutants.active(Mutant::kCompareSwapAlwaysSwaps))
      std::memcpy(&compare, r.target.data(), 8);
    auto res = memory::atomic_compare_swap(r.target, compare, swap);
    if (!res) return RespState::kErrorInvalidRequest;
    original = *res;
  } else {
    auto res = memory::atomic_fetch_add(r.target, a.swap);
    if (!res) return RespState::kErrorInvalidRequest;
    original = *res;
    if (ctx.mutants.active(Mutant::kFetchAddReturnsNewValue)) original += a.swap;
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
  if (qp.init.type == QpType::kUc && !ctx.mutants.active(Mutant::kUcAnswersWithAcks))
    return RespState::kDone;
  if (r.p.bth.ackreq) {
    if (ctx.mutants.active(Mutant::kNoAckForAckReq) && r.p.bth.opcode == wire::kOpRcSendOnly)
      return RespState::kDone;
    const uint32_t psn =
        ctx.mutants.active(Mutant::kAckPsnOffByOne) ? wire::psn_add(r.psn, 1) : r.psn;
    send_ack(qp, psn, wire::kSyndromeAck, ctx);
  }
  return RespState::kDone;
}

RespState duplicate(QueuePair& qp, Request& r, QpContext& ctx) {
  ++ctx.counters.duplicate_request;
  if (r.info.is(wire::kRead)) {
    if (ctx.mutants.active(Mutant::kDuplicateReadDropped)) return RespState::kDone;
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
      send_read_responses(qp, r.psn, reth.va, reth.rkey, reth.dlen, ctx);
      return RespState::kDone;
    }
    return RespState::kDone;  // resource recycled: silently dropped (Class D)
  }
  if (r.info.is(wire::kAtomic)) {
    for (const auto& res : qp.resources) {
      if (res.kind != ResponderResource::Kind::kAtomic || res.first_psn != r.psn) continue;
      if (ctx.mutants.active(Mutant::kAtomicReplayReexecutes)) {
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
  if (ctx.mutants.active(Mutant::kDuplicateWriteReexecuted) && r.info.is(wire::kWrite) &&
      r.p.reth) {
    auto dst =
        resolve(qp, r.p.reth->rkey, r.p.reth->va, r.p.payload.size(), memory::kRemoteWrite, ctx);
    if (dst && !r.p.payload.empty())
      std::memcpy(dst->data(), r.p.payload.data(), std::min(dst->size(), r.p.payload.size()));
  }
  // MR-AK-11: a duplicate SEND/WRITE is not executed again and draws an ACK for ePSN - 1.
  const uint32_t psn =
      ctx.mutants.active(Mutant::kDuplicateAckWrongPsn) ? r.psn : wire::psn_add(qp.epsn, -1);
  send_ack(qp, psn, wire::kSyndromeAck, ctx);
  return RespState::kDone;
}

RespState error_psn_out_of_sequence(QueuePair& qp, Request& r, QpContext& ctx) {
  // MR-PS-04/05: one NAK per sequence error, carrying ePSN; MR-RN-07: none while an RNR
  // NAK is outstanding. Either way the packet is not executed.
  const bool may_nak = !qp.sent_psn_nak || ctx.mutants.active(Mutant::kTwoNaksPerSequenceError);
  if (may_nak && !qp.rnr_nak_outstanding) {
    const uint32_t psn = ctx.mutants.active(Mutant::kNakCarriesPacketPsn) ? r.psn : qp.epsn;
    send_ack(qp, psn, wire::kNakPsnSequenceError, ctx);
    qp.sent_psn_nak = true;
  }
  return RespState::kDone;
}

RespState error_rnr(QueuePair& qp, Request& r, QpContext& ctx) {
  ++ctx.counters.send_rnr_err;
  send_ack(qp, r.psn, wire::rnr_nak(qp.attr.min_rnr_timer), ctx);
  qp.rnr_nak_outstanding = true;
  if (ctx.mutants.active(Mutant::kRnrNakAdvancesEpsn)) qp.epsn = wire::psn_add(r.psn, 1);
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
  Request r{p, *info, p.bth.psn.value()};
  const bool uc = qp.init.type == QpType::kUc;
  // RC: a fatal error NAKs and ends the QP; UC drops the message and stays operational.
  auto uc_error = [&](Request& req, uint8_t syndrome) {
    if (!uc) return fatal(qp, req, syndrome, ctx);
    if (syndrome == wire::kNakInvalidRequest && ctx.mutants.active(Mutant::kUcErrorOnStrayMiddle) &&
        !req.info.is(wire::kStart)) {
      enter_error(qp, ctx);
      return RespState::kDone;
    }
    if (syndrome == wire::kNakRemoteAccessError && ctx.mutants.active(Mutant::kUcRkeyErrorNaks))
      send_ack(qp, req.psn, syndrome, ctx);
    return uc_drop_message(qp, ctx);
  };
  for (int steps = 0; steps < 32 && r.state != RespState::kDone; ++steps) {
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
