#include "reference/transport/ext_responder.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <variant>

#include "reference/memory/atomics.h"
#include "reference/transport/read_responses.h"
#include "reference/transport/receive_scatter.h"
#include "reference/transport/requester.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/ecn.h"
#include "reference/wire/opcode.h"
#include "reference/wire/psn.h"

namespace mr::transport {
namespace {

enum class ExtRespState : uint8_t {
  kCheckHeaders,
  kClassifyPsn,
  kCheckPlacement,
  kBindWqe,
  kCheckRkey,
  kCheckContext,
  kPlace,
  kRecord,
  kReadArrived,
  kAtomicArrived,
  kAcknowledge,
  kNakInvalidRequest,
  kNakRemoteAccess,
  kNakFailedAgain,
  kNakOutOfWindow,
  kNakResource,
  kRnrNak,
  kDone,
};
constexpr std::string_view kExtRespStateNames[] = {
    "CheckHeaders",    "ClassifyPsn",    "CheckPlacement",
    "BindWqe",         "CheckRkey",      "CheckContext",
    "Place",           "Record",         "ReadArrived",
    "AtomicArrived",   "Acknowledge",    "NakInvalidRequest",
    "NakRemoteAccess", "NakFailedAgain", "NakOutOfWindow",
    "NakResource",     "RnrNak",         "Done"};
static_assert(std::size(kExtRespStateNames) == static_cast<size_t>(ExtRespState::kDone) + 1);

// The operations this slice places: SEND and RDMA WRITE, with or without immediate.
struct RequestKind {
  ext::PacketPosition position = ext::PacketPosition::kOnly;
  bool send = false;
  bool imm = false;
  bool invalidate = false;  // SEND with invalidate: an IETH on its last packet
};

std::optional<RequestKind> request_kind(uint8_t opcode) {
  using enum ext::PacketPosition;
  switch (opcode) {
    case wire::kOpRcSendFirst:
      return RequestKind{kFirst, true, false};
    case wire::kOpRcSendMiddle:
      return RequestKind{kMiddle, true, false};
    case wire::kOpRcSendLast:
      return RequestKind{kLast, true, false};
    case wire::kOpRcSendLastWithImmediate:
      return RequestKind{kLast, true, true};
    case wire::kOpRcSendOnly:
      return RequestKind{kOnly, true, false};
    case wire::kOpRcSendOnlyWithImmediate:
      return RequestKind{kOnly, true, true};
    case wire::kOpRcSendLastWithInvalidate:
      return RequestKind{kLast, true, false, true};
    case wire::kOpRcSendOnlyWithInvalidate:
      return RequestKind{kOnly, true, false, true};
    case wire::kOpRcRdmaWriteFirst:
      return RequestKind{kFirst, false, false};
    case wire::kOpRcRdmaWriteMiddle:
      return RequestKind{kMiddle, false, false};
    case wire::kOpRcRdmaWriteLast:
      return RequestKind{kLast, false, false};
    case wire::kOpRcRdmaWriteLastWithImmediate:
      return RequestKind{kLast, false, true};
    case wire::kOpRcRdmaWriteOnly:
      return RequestKind{kOnly, false, false};
    case wire::kOpRcRdmaWriteOnlyWithImmediate:
      return RequestKind{kOnly, false, true};
    default:
      return std::nullopt;
  }
}

struct ExtRequest {
  const wire::RocePacket& p;
  ext::PsnArrival arrival = ext::PsnArrival::kNew;
  RequestKind kind;
  std::span<uint8_t> target;    // WRITE: the whole message's bytes, once the R_Key passed
  const RecvWr* wqe = nullptr;  // SEND, WRITE with immediate: the WQE bound to the RQSN
  bool read = false;            // an RDMA READ request
  bool atomic = false;          // a COMPARE_SWAP or FETCH_ADD

  bool needs_wqe() const { return kind.send || kind.imm; }
  bool last() const {
    return kind.position == ext::PacketPosition::kLast ||
           kind.position == ext::PacketPosition::kOnly;
  }
};

// Section 20.3: ACKs, NAKs and READ responses are sprayed obliviously, never on an unusable
// entry (MR-MU-04); none when no entry is usable.
std::optional<size_t> reply_entry(ext::ExtQpState& ext, uint64_t now_ns) {
  return ext.selector.first_transmission(ext.evs, now_ns, /*request=*/false);
}

bool nonfatal(const ext::ExtQpState& ext) { return ext.agreement.has(wire::kMxcapNonFatal); }

// MR-NF-02: NONFATAL's NAK for what Part I answers with 0x61, 0x62 or 0x63.
uint8_t operation_nak(uint8_t part1_syndrome) {
  switch (part1_syndrome) {
    case wire::kNakRemoteAccessError:
      return wire::kNakOpRemoteAccess;
    case wire::kNakRemoteOperationalError:
      return wire::kNakOpRemoteOperational;
    default:
      return wire::kNakOpInvalidRequest;
  }
}

// MR-TR-15: Ext ACKs, NAKs and CREDIT packets carry DSCP V_TR_CTRL_DSCP (EF), which no
// trimming switch cuts and which a fabric can queue ahead of data; the ECN bits stay.
constexpr uint8_t kControlDscp = 46;

void mark_control(wire::RocePacket& p) {
  if (auto* v4 = std::get_if<wire::Ipv4>(&p.ip)) {
    v4->tos = static_cast<uint8_t>(kControlDscp << 2 | (v4->tos & 3));
  } else if (auto* v6 = std::get_if<wire::Ipv6>(&p.ip)) {
    v6->tc = static_cast<uint8_t>(kControlDscp << 2 | (v6->tc & 3));
  }
}

// Section 25.1's receiver half of ACK-path attribution: each ACK's EV, time and what it
// reported received (the cumulative PSN and the bitmap), so that a RETX = 1 copy of a PSN it
// reported blames the EV that carried it (MR-PF-15).
void remember_ack_path(ext::ExtQpState& ext, size_t entry, const wire::Sacketh& s, QpContext& ctx) {
  if (!ctx.decide.extension.blames_ack_paths) return;  // the ext-ack-path-loss-ignored mutant
  if (ext.evs.size() <= ext.evs.parameters().min_active) return;
  if (!ext.ack_paths) {  // T_PF_ACK_LOSS_WINDOW as the table counts it; the guard's default
    ext.ack_paths = std::make_unique<ext::AckPathLedger>(
        ext::AckPathParameters{.window_ns = ext.evs.parameters().ack_loss_window_ns});
  }
  const ext::SackReport report{.reference = s.sack_ref.value(),
                               .offset = static_cast<uint16_t>(s.sack_offset.value()),
                               .bitmap = s.bitmap.value()};
  ext.ack_paths->on_ack_sent(ext.evs.entry(entry).ev, ctx.now_ns, ext.window.cumulative(), report);
}

// A packet with RETX = 1 for a PSN already received: one ACK-path loss for each EV that
// carried an ACK reporting it at least T_PF_ACK_PATH_GUARD earlier (once per EV).
void blame_ack_paths(ext::ExtQpState& ext, uint32_t psn, uint64_t now_ns) {
  if (!ext.ack_paths) return;
  std::vector<uint16_t> evs = ext.ack_paths->on_duplicate_retransmission(psn, now_ns);
  std::sort(evs.begin(), evs.end());
  evs.erase(std::unique(evs.begin(), evs.end()), evs.end());
  for (uint16_t ev : evs)
    if (auto i = ext.evs.find(ev)) ext.evs.on_ack_path_loss(*i, now_ns);
}

// An Ext ACK, NAK or ATOMIC_ACKNOWLEDGE with BTH PSN `psn`, its AETH and the SACKETH the
// policy builds (it echoes the newest packet answered), sent on a usable entry; with none it
// is not sent and the sender's timers recover.
void send_ext_acknowledge(QueuePair& qp, uint8_t opcode, uint32_t psn, uint8_t syndrome,
                          std::optional<uint64_t> atomic_original, bool trimmed, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  wire::RocePacket ack = ctx.factory.start(qp, opcode, psn);
  ack.bth.version = wire::kExtVersion;
  ack.aeth = wire::Aeth{syndrome, ext.completions.msn()};
  if (atomic_original) ack.atomic_ack_eth = wire::AtomicAckEth{*atomic_original};
  ack.sacketh = ext.acks.build(ext.window, ext.cursor, ctx.now_ns);
  const ExtensionDecisions& decide = ctx.decide.extension;
  if (!decide.sack_bitmap_aligned) ack.sacketh->bitmap = ack.sacketh->bitmap.value() << 1;
  if (!decide.answers_ack_request_with_ara) ack.sacketh->ara = 0;
  if (!decide.echoes_ev) ack.sacketh->ev_echo = 0;
  if (!decide.flags_duplicates) ack.sacketh->dup = 0;
  if (!decide.counts_ce_marks) ack.sacketh->ce_count = ack.sacketh->ece.value();
  if (!decide.tse_follows_tsv) ack.sacketh->tse = 1;
  if (trimmed) ack.sacketh->trm = 1;  // a trim is a congestion signal (section 26)
  if (decide.marks_control_dscp) mark_control(ack);
  // MR-CR-07: every ACK and NAK of a credit QP carries its limit (not the mutant's).
  if (ext.credit_rx && decide.echoes_credit) {
    ack.sacketh->crv = 1;
    ack.sacketh->credit = ext.credit_rx->granted();
  }
  const std::optional<size_t> entry = reply_entry(ext, ctx.now_ns);
  if (!entry) return;
  ctx.send_on_entry(ack, ext.evs.entry(*entry));
  ++ctx.counters.ext_acks_sent;
  remember_ack_path(ext, *entry, *ack.sacketh, ctx);
}

// An Ext ACK (syndrome 0x1F, BTH PSN = C) or NAK (BTH PSN = the packet's).
void send_ext_ack(QueuePair& qp, uint8_t syndrome, std::optional<uint32_t> nak_psn, QpContext& ctx,
                  bool trimmed = false) {
  send_ext_acknowledge(qp, wire::kOpRcAcknowledge, nak_psn.value_or(qp.ext->window.cumulative()),
                       syndrome, std::nullopt, trimmed, ctx);
}

// What the ACK policy echoes of a packet (its EV, plane, TX timestamp, CE mark).
ext::AnsweredPacket answered_of(const wire::RocePacket& p, bool duplicate, uint64_t now_ns) {
  const wire::Mxh& mxh = *p.mxh;
  return {.psn = p.bth.psn,
          .duplicate = duplicate,
          .ack_request = mxh.ar != 0,
          .ce = wire::ecn_of(p) == wire::kEcnCe,
          .ev = mxh.ev,
          .plane = mxh.plane,
          .tx_timestamp = mxh.tsv ? std::optional<uint32_t>(mxh.tx_timestamp) : std::nullopt,
          .arrived_ns = now_ns};
}

// Answers the packet for the ACK policy: it echoes it, and counts it towards the next ACK.
// A whole packet with a trim mark (a switch re-marked it without cutting it) is an ordinary
// one whose ACK says TRM = 1 (MR-TR-12); cut ones never get here (Device::receive_trimmed).
void answer(QueuePair& qp, const ExtRequest& r, bool duplicate, const QpContext& ctx) {
  ext::AnsweredPacket a = answered_of(r.p, duplicate, ctx.now_ns);
  const ext::TrimParameters& trim = qp.ext->trim;
  const uint8_t dscp = wire::dscp_of(r.p);
  a.remarked = trim.enabled && (dscp == trim.trim_dscp || dscp == trim.trim_dscp_lasthop) &&
               ctx.decide.extension.signals_remarked_packets;
  qp.ext->acks.on_packet(a);
}

ExtRespState check_headers(ExtRequest& r) {
  if (r.p.bth.opcode == wire::kOpRcRdmaReadRequest) {
    if (!r.p.mxh || !r.p.reth) return ExtRespState::kNakInvalidRequest;
    r.read = true;
    return ExtRespState::kClassifyPsn;
  }
  if (r.p.bth.opcode == wire::kOpRcCompareSwap || r.p.bth.opcode == wire::kOpRcFetchAdd) {
    if (!r.p.mxh || !r.p.atomic_eth) return ExtRespState::kNakInvalidRequest;
    r.atomic = true;
    return ExtRespState::kClassifyPsn;
  }
  const auto kind = request_kind(r.p.bth.opcode);
  if (!r.p.mxh || !kind || (!kind->send && !r.p.reth) || (kind->invalidate && !r.p.ieth))
    return ExtRespState::kNakInvalidRequest;
  r.kind = *kind;
  return ExtRespState::kClassifyPsn;
}

// Section 22.2: a new packet that ends a message, or a READ or ATOMIC, ahead of the
// cumulative PSN needs a context until every earlier PSN is in; the next in order never does
// (it completes at once), so the cumulative PSN can always move.
bool needs_message_context(const ext::ExtQpState& ext, const ExtRequest& r) {
  if (ext.message_contexts == 0 || ext.messages_tracked() < ext.message_contexts) return false;
  if (r.p.bth.psn == wire::psn_add(ext.window.cumulative(), 1)) return false;
  // A copy of a READ or ATOMIC held already has its context (hold_request replaces it).
  if (ext.held_requests.contains(r.p.bth.psn)) return false;
  return r.read || r.atomic || r.last();
}

ExtRespState classify_psn(QueuePair& qp, ExtRequest& r, QpContext& ctx) {
  r.arrival = qp.ext->window.classify(r.p.bth.psn);
  // The ext-go-back-n mutant drops a new PSN that does not follow the cumulative one.
  if (r.arrival == ext::PsnArrival::kNew && !ctx.decide.extension.accepts_out_of_order &&
      r.p.bth.psn != wire::psn_add(qp.ext->window.cumulative(), 1))
    return ExtRespState::kDone;
  switch (r.arrival) {
    case ext::PsnArrival::kNew:
      // MR-NF-03: a copy of a PSN a NONFATAL NAK refused draws the same NAK until a RESYNC.
      if (qp.ext->failed_psns.contains(r.p.bth.psn)) return ExtRespState::kNakFailedAgain;
      if ((r.atomic || r.read) && needs_message_context(*qp.ext, r))
        return ExtRespState::kNakResource;
      if (r.atomic) return ExtRespState::kAtomicArrived;
      if (r.read) return ExtRespState::kReadArrived;
      // MR-NF-04: the other packets of a failed message are recorded, not placed.
      if (qp.ext->failed_msns.contains(r.p.mxh->msn))
        return needs_message_context(*qp.ext, r) ? ExtRespState::kNakResource
                                                 : ExtRespState::kRecord;
      return ExtRespState::kCheckPlacement;
    case ext::PsnArrival::kDuplicate:
      ++ctx.counters.duplicate_request;
      if (r.p.mxh->retx) blame_ack_paths(*qp.ext, r.p.bth.psn, ctx.now_ns);  // MR-PF-15
      if (r.read) return ExtRespState::kReadArrived;      // served again, from its PSN
      if (r.atomic) return ExtRespState::kAtomicArrived;  // answered again, not executed
      answer(qp, r, /*duplicate=*/true, ctx);             // placed before: not again (MR-OO-08)
      return ExtRespState::kAcknowledge;
    case ext::PsnArrival::kBeyondWindow:
      return ExtRespState::kNakOutOfWindow;
  }
  return ExtRespState::kDone;
}

// Section 24's length rules. A SEND's length is known at its end: its packets are held to
// the offset and PMTU rules here, to the receive WQE when it is bound.
ExtRespState check_placement(const QueuePair& qp, const ExtRequest& r) {
  const uint64_t offset = r.p.mxh->offset;
  const uint64_t length = r.kind.send ? offset + r.p.payload.size() : uint64_t{r.p.reth->dlen};
  const auto error =
      ext::placement_error(r.kind.position, offset, r.p.payload.size(), length, qp.attr.path_mtu);
  if (error) return ExtRespState::kNakInvalidRequest;
  return r.needs_wqe() ? ExtRespState::kBindWqe : ExtRespState::kCheckRkey;
}

// A posted receive WQE into the RQSN binding, under the next posting sequence.
void take_wqe(ext::ExtQpState& ext, RingDeque<RecvWr>& queue) {
  const uint64_t sequence = ext.next_wqe_sequence++;
  ext.wqes.emplace(sequence, std::move(queue.front()));
  queue.pop_front();
  ext.binding.post(sequence);
}

// Every WQE of the QP's own receive queue into the binding, in posting order (WQE k serves
// RQSN k); an SRQ's are taken one at a time, when an RQSN's first packet needs one.
void take_queued_wqes(QueuePair& qp, const QpContext& ctx) {
  if (ctx.srq != nullptr) return;
  while (!qp.rq.empty()) take_wqe(*qp.ext, qp.rq);
}

// The receive WQE of the packet's RQSN (MR-OO-06): WQE k of a receive queue serves RQSN k;
// an SRQ's next WQE is bound when an RQSN's first packet arrives. None: RNR (MR-OO-11).
ExtRespState bind_wqe(QueuePair& qp, ExtRequest& r, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  take_queued_wqes(qp, ctx);
  auto sequence = ext.binding.bind(r.p.mxh->rqsn);
  if (!sequence && ctx.srq != nullptr && !ctx.srq->empty()) {
    take_wqe(ext, *ctx.srq);
    sequence = ext.binding.bind(r.p.mxh->rqsn);
  }
  if (!sequence) return ExtRespState::kRnrNak;
  r.wqe = &ext.wqes.at(*sequence);
  if (r.kind.send && r.p.mxh->offset + r.p.payload.size() > receive_capacity(*r.wqe))
    return ExtRespState::kNakInvalidRequest;  // longer than the WQE (section 24)
  // A key that cannot be invalidated is answered when the IETH arrives, as Part I does
  // (NAK 0x61), not found later at completion when every PSN has been acknowledged.
  if (r.kind.invalidate && !ctx.memory.may_invalidate_rkey(r.p.ieth->rkey, qp.init.pd))
    return ExtRespState::kNakInvalidRequest;
  return r.kind.send ? ExtRespState::kCheckContext : ExtRespState::kCheckRkey;
}

// MR-OO-03: the whole message's range, whichever packet arrives first.
ExtRespState check_rkey(const QueuePair& qp, ExtRequest& r, const QpContext& ctx) {
  const wire::Reth& reth = *r.p.reth;
  if (reth.dlen == 0) return ExtRespState::kCheckContext;
  if ((qp.attr.access_flags & kQpRemoteWrite) == 0) return ExtRespState::kNakRemoteAccess;
  auto span =
      ctx.memory.resolve_remote(reth.rkey, qp.init.pd, reth.va, reth.dlen, memory::kRemoteWrite);
  if (!span) {
    // The ext-rkey-checked-at-first-only mutant drops, unanswered, a MIDDLE or LAST that
    // arrives with a bad R_Key, as if only a message's first packet were checked.
    const bool starts = r.kind.position == ext::PacketPosition::kFirst ||
                        r.kind.position == ext::PacketPosition::kOnly;
    if (!starts && !ctx.decide.extension.checks_rkey_on_any_packet) return ExtRespState::kDone;
    return ExtRespState::kNakRemoteAccess;
  }
  r.target = *span;
  return ExtRespState::kCheckContext;
}

// Section 22.2, checked last before placing: a SEND without a receive WQE is still an RNR
// NAK and a bad R_Key still its NAK (those say more than a lack of room would).
ExtRespState check_context(const QueuePair& qp, const ExtRequest& r) {
  return needs_message_context(*qp.ext, r) ? ExtRespState::kNakResource : ExtRespState::kPlace;
}

// MR-OO-01, MR-OO-06: at RETH VA + MXH offset, or at MXH offset in the bound WQE, in
// whatever order the packets come.
ExtRespState place(const QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  const auto payload = r.p.payload;
  if (r.kind.send) {
    return scatter_to_receive_wqe(qp, *r.wqe, r.p.mxh->offset, payload, ctx)
               ? ExtRespState::kRecord
               : ExtRespState::kNakInvalidRequest;
  }
  if (!payload.empty())
    std::memcpy(r.target.data() + r.p.mxh->offset, payload.data(), payload.size());
  return ExtRespState::kRecord;
}

// The receive completions of the messages the cumulative PSN has passed, in MSN order
// (MR-OO-04, MR-OO-05); a WRITE without immediate only moves the MSN.
void complete_messages(QueuePair& qp, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  // A failed SEND may have bound no WQE yet (none of its packets was placed): WQE k is its.
  take_queued_wqes(qp, ctx);
  for (uint32_t msn : ext.completions.advance(ext.window.cumulative())) {
    std::optional<WcStatus> failed;
    if (auto f = ext.failed_msns.find(msn); f != ext.failed_msns.end()) {
      failed = f->second;
      ext.failed_msns.erase(f);
    }
    auto end = ext.ends.find(msn);
    if (end == ext.ends.end()) continue;
    const ext::ExtMessageEnd& e = end->second;
    if (e.rqsn != 0) {
      if (auto sequence = ext.binding.bind(e.rqsn)) {
        Completion c;
        // MR-NF-04, MR-NF-11: a message NONFATAL failed completes in error; the QP lives on.
        if (failed) c.status = *failed;
        // Section 24: the invalidation, in MSN order with the completion (MR-MP-09). The key
        // was checked when its IETH arrived (bind_wqe); one invalidated since (by an earlier
        // message) fails the receive and the QP, as in Part I.
        if (e.invalidate_rkey && !failed) {
          c.invalidated_rkey = *e.invalidate_rkey;
          if (!ctx.memory.invalidate_rkey(*e.invalidate_rkey, qp.init.pd))
            c.status = WcStatus::kRemoteInvalidRequestError;
        }
        c.wr_id = ext.wqes.at(*sequence).wr_id;
        c.opcode = e.send ? WcOpcode::kRecv : WcOpcode::kRecvRdmaWithImm;
        c.byte_len = e.byte_len;
        c.qp_num = qp.qpn;
        c.imm_data = e.imm;
        c.solicited = e.solicited;
        ctx.complete_recv(c);
        ++ctx.counters.rdma_recvs;
        ext.binding.consume(e.rqsn);
        ext.wqes.erase(*sequence);
        if (c.status != WcStatus::kSuccess && !failed) {
          ext.ends.erase(end);
          enter_error(qp, ctx);
          return;
        }
      }
    }
    ext.ends.erase(end);
  }
}

void run_held_requests(QueuePair& qp, QpContext& ctx);

ExtRespState record(QueuePair& qp, ExtRequest& r, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  ext.window.record(r.p.bth.psn);
  if (r.last()) {
    ext::ExtMessageEnd end;
    if (r.needs_wqe()) {
      end.rqsn = r.p.mxh->rqsn;
      end.send = r.kind.send;
      end.byte_len = r.kind.send ? static_cast<uint32_t>(r.p.mxh->offset + r.p.payload.size())
                                 : r.p.reth->dlen.value();
      if (r.p.imm_dt) end.imm = r.p.imm_dt->imm.value();
      if (r.kind.invalidate) end.invalidate_rkey = r.p.ieth->rkey.value();
      end.solicited = r.p.bth.solicited != 0;
    }
    ext.ends.emplace(r.p.mxh->msn, end);
    ext.completions.on_last_packet(r.p.mxh->msn, r.p.bth.psn);
  }
  answer(qp, r, /*duplicate=*/false, ctx);
  run_held_requests(qp, ctx);
  complete_messages(qp, ctx);
  return ExtRespState::kAcknowledge;
}

void remember_response_path(ext::ExtQpState& ext, uint32_t psn, uint16_t entry, uint64_t now_ns) {
  if (ext.response_paths.empty()) ext.response_paths.resize(ext::ExtQpState::kResponsePaths);
  ext.response_paths[psn % ext::ExtQpState::kResponsePaths] = {psn, entry, true, now_ns};
}

// A READ asked again (RETX = 1) from a PSN whose response left at least T_PF_ACK_PATH_GUARD
// ago: that response was lost on its entry's path, as an ACK reporting a PSN that comes back
// with RETX = 1 was (MR-PF-15). Without this a silent plane failure would eat a READ's
// responses on every reissue, the requester having no way to steer them.
void blame_response_path(ext::ExtQpState& ext, uint32_t psn, uint64_t now_ns) {
  if (ext.response_paths.empty()) return;
  ext::ExtQpState::ResponsePath& sent = ext.response_paths[psn % ext::ExtQpState::kResponsePaths];
  if (!sent.valid || sent.psn != psn) return;
  constexpr uint64_t kGuardNs = 100'000;  // T_PF_ACK_PATH_GUARD
  if (now_ns - sent.sent_ns >= kGuardNs && sent.entry < ext.evs.size())
    ext.evs.on_ack_path_loss(sent.entry, now_ns);
  sent.valid = false;
}

// MR-OO-14: the responses of a READ (or of its reissue from a later PSN), sprayed like
// every other packet: MXH offset = (PSN - the original READ's PSN) x PMTU, the request's MSN,
// an AETH with the current MSN on all but MIDDLE, each packet's source re-validated against
// current memory (MR-MP-11). False when the R_Key failed: the caller NAKs.
bool send_ext_read_responses(QueuePair& qp, const ext::HeldRequest& h, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const uint32_t mtu = qp.attr.path_mtu;
  const uint32_t count = packets_for(h.dma_length, mtu);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t offset = i * mtu;
    const uint32_t n = std::min(mtu, h.dma_length - std::min(h.dma_length, offset));
    const uint8_t opcode = read_response_opcode(i, count);
    std::span<const uint8_t> data;
    if (n > 0) {
      auto src =
          ctx.memory.resolve_remote(h.rkey, qp.init.pd, h.va + offset, n, memory::kRemoteRead);
      if (!src) return false;
      data = std::span<const uint8_t>(src->data(), n);
    }
    const std::optional<size_t> entry = reply_entry(ext, ctx.now_ns);
    if (!entry) return true;  // no usable entry: the requester asks again (section 21.3)
    const ext::EvEntry& e = ext.evs.entry(*entry);
    wire::RocePacket p = ctx.factory.start(qp, opcode, wire::psn_add(h.psn, i));
    p.bth.version = wire::kExtVersion;
    wire::Mxh mxh;
    mxh.msn = h.msn;
    mxh.offset = h.mxh_offset + offset;
    mxh.ev = e.ev;
    mxh.plane = e.plane;
    // MR-SA-29: a response asks for nothing; the ext-ar-in-read-response mutant copies AR.
    if (h.answered.ack_request && !ctx.decide.extension.read_responses_without_ar) mxh.ar = 1;
    p.mxh = mxh;
    if (opcode != wire::kOpRcRdmaReadResponseMiddle)
      p.aeth = wire::Aeth{wire::kSyndromeAck, ext.completions.msn()};
    p.payload = data;
    ctx.send_on_entry(p, e);
    remember_response_path(ext, p.bth.psn, static_cast<uint16_t>(*entry), ctx.now_ns);
  }
  return true;
}

// MR-NF-02 to MR-NF-04 for a READ or ATOMIC that fails when it runs: its PSN is not recorded
// and draws `nak` on every copy until a RESYNC covers it, its message is failed (nothing
// executed) and counts in the MSN once the cumulative PSN passes its last PSN.
void fail_held(QueuePair& qp, const ext::HeldRequest& h, uint8_t nak, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  ext.failed_psns[h.psn] = nak;
  ext.failed_msns.try_emplace(h.msn, WcStatus::kRemoteOperationError);
  const uint32_t count = h.atomic ? 1 : packets_for(h.dma_length, qp.attr.path_mtu);
  ext.completions.on_last_packet(h.msn, wire::psn_add(h.psn, count - 1));
  send_ext_ack(qp, nak, h.psn, ctx);
}

// Executes a READ: a new one records its PSNs (the cumulative PSN passes them, section 21.3)
// and counts in the MSN; every one sends its responses. A failed R_Key or access check is
// NAK 0x62 and the QP's end, as for a WRITE.
bool execute_read(QueuePair& qp, const ext::HeldRequest& h, bool fresh, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const bool allowed =
      (qp.attr.access_flags & kQpRemoteRead) != 0 &&
      (h.dma_length == 0 ||
       ctx.memory.resolve_remote(h.rkey, qp.init.pd, h.va, h.dma_length, memory::kRemoteRead));
  if (allowed && fresh) {
    const uint32_t count = packets_for(h.dma_length, qp.attr.path_mtu);
    for (uint32_t i = 0; i < count; ++i) ext.window.record(wire::psn_add(h.psn, i));
    ext.completions.on_last_packet(h.msn, wire::psn_add(h.psn, count - 1));
    // Counted before its responses leave: their AETH MSN includes this READ (EX-B6).
    complete_messages(qp, ctx);
    if (qp.attr.state == QpState::kError) return false;  // an earlier message failed it
  }
  if (!h.answered_while_held) ext.acks.on_packet(h.answered);
  if (allowed && send_ext_read_responses(qp, h, ctx)) return true;
  if (nonfatal(ext)) {
    if (fresh) {
      fail_held(qp, h, wire::kNakOpRemoteAccess, ctx);
    } else {  // executed once already: its PSNs stay recorded, only this copy is refused
      send_ext_ack(qp, wire::kNakOpRemoteAccess, h.psn, ctx);
    }
    return false;
  }
  send_ext_ack(qp, wire::kNakRemoteAccessError, h.psn, ctx);
  enter_error(qp, ctx);
  return false;
}

// Executes an ATOMIC whose every earlier PSN is in (MR-OO-10): the 8-byte target checked as
// Part I does (access, R_Key, alignment), the operation done, its original value kept for
// duplicates (MR-AT-04) and sent in an ATOMIC_ACKNOWLEDGE with the request's PSN (MR-AT-06),
// whose SACKETH and AETH MSN already count it. A failed check is the QP's end, as for a
// WRITE (MR-NK-07): NAK 0x61 for a QP without remote-atomic access or a misaligned target,
// 0x62 for a region or key that does not allow it (MR-AT-05, MR-AT-03).
bool execute_atomic(QueuePair& qp, const ext::HeldRequest& h, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const auto& [opcode, a] = *h.atomic;
  if (!h.answered_while_held) ext.acks.on_packet(h.answered);
  std::optional<uint64_t> original;
  uint8_t nak = wire::kNakInvalidRequest;  // the QP does not allow remote atomics
  if ((qp.attr.access_flags & kQpRemoteAtomic) != 0) {
    std::optional<memory::AccessError> error;
    if (auto target =
            ctx.memory.resolve_remote(h.rkey, qp.init.pd, h.va, 8, memory::kRemoteAtomic)) {
      auto done = opcode == wire::kOpRcCompareSwap
                      ? memory::atomic_compare_swap(*target, a.comp, a.swap)
                      : memory::atomic_fetch_add(*target, a.swap);
      if (done) {
        original = *done;
      } else {
        error = done.error();
      }
    } else {
      error = target.error();
    }
    if (error)
      nak = *error == memory::AccessError::kMisaligned ? wire::kNakInvalidRequest
                                                       : wire::kNakRemoteAccessError;
  }
  if (!original && nonfatal(ext)) {
    fail_held(qp, h, operation_nak(nak), ctx);
    return false;
  }
  if (!original) {
    send_ext_ack(qp, nak, h.psn, ctx);
    enter_error(qp, ctx);
    return false;
  }
  ext.window.record(h.psn);
  ext.completions.on_last_packet(h.msn, h.psn);
  complete_messages(qp, ctx);
  if (qp.attr.state == QpState::kError) return false;  // an earlier message failed it
  if (ext.atomic_results.size() == ext::ExtQpState::kAtomicResults) ext.atomic_results.pop_front();
  ext.atomic_results.push_back({h.psn, *original});
  send_ext_acknowledge(qp, wire::kOpRcAtomicAcknowledge, h.psn, wire::kSyndromeAck, *original,
                       /*trimmed=*/false, ctx);
  // Its PSN, not the cumulative one (MR-AT-06): PSNs that arrived while it was held are
  // acknowledged by an ordinary ACK, or they would wait for their RTO.
  if (ext.window.cumulative() != h.psn) send_ext_ack(qp, wire::kSyndromeAck, std::nullopt, ctx);
  return true;
}

// A held READ or ATOMIC, run for the first time. False when it failed.
bool execute_held(QueuePair& qp, const ext::HeldRequest& h, QpContext& ctx) {
  return h.atomic ? execute_atomic(qp, h, ctx) : execute_read(qp, h, /*fresh=*/true, ctx);
}

// MR-OO-10: a READ or ATOMIC runs only once every earlier PSN is in; one that came early
// waits here, and runs when the cumulative PSN reaches it.
void run_held_requests(QueuePair& qp, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  // Few are ever held; PSNs wrap, so each round looks at all of them. Bounded: each round
  // runs one READ or ends.
  const auto after_cumulative = [&](const auto& held) {
    return wire::psn_diff(held.first, ext.window.cumulative());
  };
  while (!ext.held_requests.empty()) {
    // Recorded meanwhile (a retransmission of it ran): nothing to hold.
    std::erase_if(ext.held_requests, [&](const auto& held) { return after_cumulative(held) <= 0; });
    const auto next = std::find_if(ext.held_requests.begin(), ext.held_requests.end(),
                                   [&](const auto& held) { return after_cumulative(held) == 1; });
    if (next == ext.held_requests.end()) return;
    const ext::HeldRequest h = next->second;
    ext.held_requests.erase(next);
    if (!execute_held(qp, h, ctx)) return;
  }
}

// Holds a READ or ATOMIC until every earlier PSN is in, and runs what can run. One still
// held is an accepted packet all the same: it is answered now (MR-SA-20: an AR = 1 packet
// gets its ARA = 1 ACK at once), not when it runs. The ext-read-executes-ahead mutant runs
// it at once, whatever is missing before it.
void hold_request(QueuePair& qp, ext::HeldRequest h, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const bool early = wire::psn_diff(h.psn, ext.window.cumulative()) != 1;
  if (early && !ctx.decide.extension.holds_early_requests) {
    execute_held(qp, h, ctx);
    return;
  }
  const uint32_t psn = h.psn;
  ext.held_requests.insert_or_assign(psn, h);
  run_held_requests(qp, ctx);
  if (auto held = ext.held_requests.find(psn); held != ext.held_requests.end()) {
    ext.acks.on_packet(held->second.answered);
    held->second.answered_while_held = true;
  }
  complete_messages(qp, ctx);
}

ExtRespState read_arrived(QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const wire::Reth& reth = *r.p.reth;
  const uint32_t mtu = qp.attr.path_mtu;
  if (r.p.mxh->offset % mtu != 0) return ExtRespState::kNakInvalidRequest;
  const bool duplicate = r.arrival == ext::PsnArrival::kDuplicate;
  const ext::HeldRequest h{.psn = r.p.bth.psn,
                           .va = reth.va,
                           .rkey = reth.rkey,
                           .dma_length = reth.dlen,
                           .msn = r.p.mxh->msn,
                           .mxh_offset = r.p.mxh->offset,
                           .answered = answered_of(r.p, duplicate, ctx.now_ns)};
  if (duplicate) {
    if (r.p.mxh->retx) blame_response_path(ext, h.psn, ctx.now_ns);
    execute_read(qp, h, /*fresh=*/false, ctx);
    return ExtRespState::kAcknowledge;
  }
  hold_request(qp, h, ctx);
  return ExtRespState::kAcknowledge;
}

// An ATOMIC: held until every earlier PSN is in and then executed once (MR-OO-10); a
// duplicate is answered with the original value saved when it ran (MR-AT-04), or, if it has
// not run yet (held) or its result is no longer kept, with the ACK the policy owes.
ExtRespState atomic_arrived(QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const wire::AtomicEth& a = *r.p.atomic_eth;
  if (r.arrival == ext::PsnArrival::kDuplicate) {
    // Newest first: PSNs wrap, and an older result may carry the same PSN.
    const auto saved =
        std::find_if(ext.atomic_results.rbegin(), ext.atomic_results.rend(),
                     [&](const ext::AtomicResult& x) { return x.psn == r.p.bth.psn; });
    if (saved == ext.atomic_results.rend()) return ExtRespState::kAcknowledge;
    ext.acks.on_packet(answered_of(r.p, /*duplicate=*/true, ctx.now_ns));
    send_ext_acknowledge(qp, wire::kOpRcAtomicAcknowledge, saved->psn, wire::kSyndromeAck,
                         saved->original, /*trimmed=*/false, ctx);
    return ExtRespState::kDone;
  }
  hold_request(qp,
               ext::HeldRequest{.psn = r.p.bth.psn,
                                .va = a.va,
                                .rkey = a.rkey,
                                .dma_length = 8,
                                .msn = r.p.mxh->msn,
                                .answered = answered_of(r.p, /*duplicate=*/false, ctx.now_ns),
                                .atomic = std::pair{static_cast<uint8_t>(r.p.bth.opcode), a}},
               ctx);
  return ExtRespState::kAcknowledge;
}

ExtRespState acknowledge(QueuePair& qp, QpContext& ctx) {
  flush_ext_ack(qp, ctx);
  return ExtRespState::kDone;
}

// MR-NF-02 to MR-NF-04: with NONFATAL a Part I error fails the operation, not the QP. The
// packet draws NAK 0x68-0x6A with its PSN and is not recorded, so that it stays a hole until
// the requester's RESYNC; its message is failed, and counts in the MSN once the cumulative
// PSN passes its last PSN (known here when this packet ends the message).
ExtRespState nak_operation(QueuePair& qp, const ExtRequest& r, uint8_t nak, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const wire::Mxh& mxh = *r.p.mxh;
  const uint32_t psn = r.p.bth.psn;
  answer(qp, r, /*duplicate=*/false, ctx);
  send_ext_ack(qp, nak, psn, ctx);
  // A malformed copy of a PSN already received, or one beyond the window, fails nothing: only
  // a new PSN becomes a hole that a RESYNC will fill.
  if (ext.window.classify(psn) != ext::PsnArrival::kNew) return ExtRespState::kDone;
  ext.failed_psns[psn] = nak;
  ext.failed_msns.try_emplace(mxh.msn, WcStatus::kRemoteOperationError);
  if (!ctx.decide.extension.failed_psn_unrecorded) ext.window.record(psn);  // the mutant
  std::optional<uint32_t> last;
  if (r.read && r.p.reth) {
    last = wire::psn_add(psn, packets_for(r.p.reth->dlen, qp.attr.path_mtu) - 1);
  } else if (r.atomic || (request_kind(r.p.bth.opcode) && r.last())) {
    last = psn;
  }
  if (last) {
    if (r.needs_wqe())
      ext.ends.try_emplace(mxh.msn, ext::ExtMessageEnd{.rqsn = mxh.rqsn, .send = r.kind.send});
    ext.completions.on_last_packet(mxh.msn, *last);
  }
  return ExtRespState::kDone;
}

// MR-NF-03: every later copy of a refused PSN draws the same NAK, until a RESYNC covers it.
ExtRespState nak_failed_again(QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  answer(qp, r, /*duplicate=*/false, ctx);
  send_ext_ack(qp, qp.ext->failed_psns.at(r.p.bth.psn), r.p.bth.psn, ctx);
  return ExtRespState::kDone;
}

// MR-NK-07: without NONFATAL a Part I error NAKs the packet and ends the QP.
ExtRespState nak_fatal(QueuePair& qp, const ExtRequest& r, uint8_t syndrome, QpContext& ctx) {
  // The ext-nonfatal-without-agreement mutant acts as if NONFATAL were agreed.
  const bool agreed = nonfatal(*qp.ext) || !ctx.decide.extension.fatal_naks_without_nonfatal;
  if (agreed && r.p.mxh && ctx.decide.extension.nonfatal_keeps_qp)
    return nak_operation(qp, r, operation_nak(syndrome), ctx);
  if (r.p.mxh) answer(qp, r, /*duplicate=*/false, ctx);  // the NAK echoes its EV and plane
  send_ext_ack(qp, syndrome, r.p.bth.psn, ctx);
  enter_error(qp, ctx);
  return ExtRespState::kDone;
}

// MR-OO-11: an RNR NAK for that packet only; not placed, not recorded.
ExtRespState rnr_nak(QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  ++ctx.counters.send_rnr_err;
  answer(qp, r, /*duplicate=*/false, ctx);
  // The ext-rnr-records-psn mutant: the PSN counts as received, its retransmission as a copy.
  if (!ctx.decide.extension.rnr_leaves_psn_unrecorded) qp.ext->window.record(r.p.bth.psn);
  send_ext_ack(qp, wire::rnr_nak(qp.attr.min_rnr_timer), r.p.bth.psn, ctx);
  return ExtRespState::kDone;
}

// MR-NK-06: not placed, not recorded; NAK 0x67 with its PSN.
ExtRespState nak_out_of_window(QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  ++ctx.counters.out_of_seq_request;
  qp.ext->acks.on_beyond_window();
  answer(qp, r, /*duplicate=*/false, ctx);
  // The ext-oow-nak-cumulative-psn mutant names the cumulative PSN, as a base NAK would.
  const uint32_t refused = r.p.bth.psn;
  const uint32_t named =
      ctx.decide.extension.oow_nak_names_packet ? refused : qp.ext->window.cumulative();
  send_ext_ack(qp, wire::kNakPsnOutOfWindow, named, ctx);
  return ExtRespState::kDone;
}

// MR-NF-07: no context for a new message: with NONFATAL, NAK 0x6B with its PSN; nothing is
// recorded or placed, so its retransmission (after section 22.2's back-off) is new again.
// Without NONFATAL the packet is lost to the sender, whose RTO sends it again.
ExtRespState nak_resource(QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  ++ctx.counters.ext_resource_refused;
  // The ext-resource-nak-records-psn mutant counts it received all the same.
  if (!ctx.decide.extension.refused_psn_unrecorded) qp.ext->window.record(r.p.bth.psn);
  // The ext-resource-discard-silent mutant drops it as a QP without NONFATAL would.
  if (!nonfatal(*qp.ext) || !ctx.decide.extension.naks_refused_messages) return ExtRespState::kDone;
  answer(qp, r, /*duplicate=*/false, ctx);  // the NAK echoes its EV and plane
  send_ext_ack(qp, wire::kNakResource, r.p.bth.psn, ctx);
  return ExtRespState::kDone;
}

}  // namespace

void respond_ext_trimmed(QueuePair& qp, const wire::RocePacket& p, const ext::HeldPacket& held,
                         const ext::TrimParameters& trim, QpContext& ctx) {
  if (!qp.ext || !p.mxh) return;
  ext::ExtQpState& ext = *qp.ext;
  // Section 26.7: a cut packet, NAKed or not, costs the credit of a whole one.
  if (ext.credit_rx)
    ext.credit_rx->on_request(0, /*trimmed=*/true, qp.attr.path_mtu, p.mxh->pending, ctx.now_ns);
  const ExtensionDecisions& decide = ctx.decide.extension;
  // The ext-trim-naks-any-psn mutant takes every PSN for new.
  const ext::PsnArrival arrival =
      decide.naks_only_new_trimmed_psns ? ext.window.classify(p.bth.psn) : ext::PsnArrival::kNew;
  auto nak = ext::trimmed_request_nak(held, trim, /*headers_intact=*/true, arrival);
  if (!nak) return;
  if (!decide.naks_last_hop_trims_0x66) nak = wire::kNakTrimmed;
  if (!decide.trimmed_psn_unrecorded) ext.window.record(p.bth.psn);
  ctx.step("ext-responder", "NakTrimmed", p.bth.psn);
  ext.acks.on_packet(answered_of(p, /*duplicate=*/false, ctx.now_ns));  // EV and plane echoed
  send_ext_ack(qp, *nak, p.bth.psn, ctx, /*trimmed=*/true);
  ++ctx.counters.ext_trim_naks_sent;
}

void respond_ext(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!qp.ext) return;
  // Section 26.7: every request packet that arrives (new, duplicate or refused) has spent its
  // cost, and its Pending field is the sender's demand.
  if (qp.ext->credit_rx && p.mxh)
    qp.ext->credit_rx->on_request(static_cast<uint32_t>(p.payload.size()), /*trimmed=*/false,
                                  qp.attr.path_mtu, p.mxh->pending, ctx.now_ns);
  ExtRequest r{.p = p};
  ExtRespState state = ExtRespState::kCheckHeaders;
  // Bounded: every state moves towards kDone.
  for (int steps = 0; state != ExtRespState::kDone && steps < 24; ++steps) {
    ctx.step("ext-responder", kExtRespStateNames[static_cast<size_t>(state)], p.bth.psn);
    switch (state) {
      case ExtRespState::kCheckHeaders:
        state = check_headers(r);
        break;
      case ExtRespState::kClassifyPsn:
        state = classify_psn(qp, r, ctx);
        break;
      case ExtRespState::kCheckPlacement:
        state = check_placement(qp, r);
        break;
      case ExtRespState::kBindWqe:
        state = bind_wqe(qp, r, ctx);
        break;
      case ExtRespState::kCheckRkey:
        state = check_rkey(qp, r, ctx);
        break;
      case ExtRespState::kCheckContext:
        state = check_context(qp, r);
        break;
      case ExtRespState::kPlace:
        state = place(qp, r, ctx);
        break;
      case ExtRespState::kRecord:
        state = record(qp, r, ctx);
        break;
      case ExtRespState::kReadArrived:
        state = read_arrived(qp, r, ctx);
        break;
      case ExtRespState::kAtomicArrived:
        state = atomic_arrived(qp, r, ctx);
        break;
      case ExtRespState::kAcknowledge:
        state = acknowledge(qp, ctx);
        break;
      case ExtRespState::kNakInvalidRequest:
        state = nak_fatal(qp, r, wire::kNakInvalidRequest, ctx);
        break;
      case ExtRespState::kNakRemoteAccess:
        state = nak_fatal(qp, r, wire::kNakRemoteAccessError, ctx);
        break;
      case ExtRespState::kNakFailedAgain:
        state = nak_failed_again(qp, r, ctx);
        break;
      case ExtRespState::kNakOutOfWindow:
        state = nak_out_of_window(qp, r, ctx);
        break;
      case ExtRespState::kNakResource:
        state = nak_resource(qp, r, ctx);
        break;
      case ExtRespState::kRnrNak:
        state = rnr_nak(qp, r, ctx);
        break;
      case ExtRespState::kDone:
        break;
    }
  }
}

void respond_ext_probe(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!qp.ext || !qp.ext->agreement.has(wire::kMxcapPathProbe)) return;
  if (qp.attr.state != QpState::kRtr && qp.attr.state != QpState::kRts) return;
  if (!p.mxh) {
    ++ctx.counters.dropped_malformed;  // table 19.1
    return;
  }
  if (!ctx.decide.extension.answers_probes) return;  // the ext-probe-unanswered mutant
  ctx.step("ext-responder", "Probe", p.bth.psn);
  ext::AnsweredPacket a = answered_of(p, /*duplicate=*/false, ctx.now_ns);
  a.probe = true;  // answered at once: the policy's own trigger, with PRB = 1
  qp.ext->acks.on_packet(a);
  flush_ext_ack(qp, ctx);
}

void respond_ext_resync(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!qp.ext || !qp.ext->agreement.has(wire::kMxcapResync)) return;  // MR-NF-12
  if (qp.attr.state != QpState::kRtr && qp.attr.state != QpState::kRts) return;
  if (!p.mxh || !p.rsyneth) {
    ++ctx.counters.dropped_malformed;  // table 19.1
    return;
  }
  const uint32_t count = p.rsyneth->count;
  // MR-NF-12: count 0 is silently discarded (the ext-empty-resync-answered mutant goes on).
  if (count == 0 && ctx.decide.extension.discards_empty_resync) return;
  ext::ExtQpState& ext = *qp.ext;
  const uint32_t first = p.bth.psn;
  const uint32_t last = wire::psn_add(first, count - 1);
  ctx.step("ext-responder", "Resync", first);
  // MR-NF-12: a range reaching beyond the window (the window is contiguous: its ends decide).
  const bool beyond = ext.window.classify(first) == ext::PsnArrival::kBeyondWindow ||
                      ext.window.classify(last) == ext::PsnArrival::kBeyondWindow;
  if (beyond && ctx.decide.extension.checks_resync_window) {
    ++ctx.counters.out_of_seq_request;
    ext.acks.on_beyond_window();
    ext.acks.on_packet(answered_of(p, /*duplicate=*/false, ctx.now_ns));
    send_ext_ack(qp, wire::kNakPsnOutOfWindow, first, ctx);
    return;
  }
  // MR-NF-10: every PSN of the range received, the message failed.
  bool all_received = true;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t psn = wire::psn_add(first, i);
    ext.failed_psns.erase(psn);
    if (ext.window.classify(psn) == ext::PsnArrival::kNew) {
      // The ext-resync-range-unrecorded mutant leaves the hole.
      if (ctx.decide.extension.resync_records_range) ext.window.record(psn);
      all_received = false;
    }
  }
  // MR-NF-10 fails the message whether or not its PSNs were in; a repeat for a message that
  // has completed since changes nothing (its MSN is past).
  const wire::Mxh& mxh = *p.mxh;
  if (wire::psn_diff(mxh.msn, (ext.completions.msn() + 1) & wire::kPsnMask) >= 0) {
    // Code 2 (ABORT) and 3 (RESOURCE): the requester gave the message up (section 22.3).
    ext.failed_msns[mxh.msn] =
        p.rsyneth->code == 1 ? WcStatus::kRemoteOperationError : WcStatus::kRemoteAbortError;
    if (p.rsyneth->end) {  // the message's last PSN, now known (MR-NF-11)
      if (mxh.rqsn != 0)
        ext.ends.try_emplace(mxh.msn, ext::ExtMessageEnd{.rqsn = mxh.rqsn, .send = true});
      ext.completions.on_last_packet(mxh.msn, last);
    }
  }
  ext::AnsweredPacket a = answered_of(p, all_received, ctx.now_ns);
  a.ack_request = true;  // ARA = 1, within T_SA_AR_ACK_DELAY
  ext.acks.on_packet(a);
  run_held_requests(qp, ctx);
  complete_messages(qp, ctx);
  flush_ext_ack(qp, ctx);
}

void send_ext_credit(QueuePair& qp, QpContext& ctx) {
  if (!qp.ext || !qp.ext->credit_rx) return;
  ext::ExtQpState& ext = *qp.ext;
  const std::optional<size_t> entry = reply_entry(ext, ctx.now_ns);
  if (!entry) return;  // no usable path back: the credit timeout recovers (MR-CR-14)
  ctx.step("ext-responder", "Credit", ext.window.cumulative());
  // MR-CR-15: TVer 1, AckReq 0, the cumulative PSN, which it does not consume (the
  // ext-credit-packet-psn-ahead mutant sends the next).
  const uint32_t psn = ctx.decide.extension.credit_packet_at_cumulative
                           ? ext.window.cumulative()
                           : wire::psn_add(ext.window.cumulative(), 1);
  wire::RocePacket p = ctx.factory.start(qp, wire::kOpExtCredit, psn);
  p.bth.version = wire::kExtVersion;
  p.bth.ackreq = 0;
  p.creth = wire::Creth{.credit = ext.credit_rx->granted()};
  mark_control(p);
  ctx.send_on_entry(p, ext.evs.entry(*entry));
  ++ctx.counters.ext_credit_packets_sent;
}

void flush_ext_ack(QueuePair& qp, QpContext& ctx) {
  if (!qp.ext) return;
  qp.ext->acks.on_cumulative(qp.ext->window.cumulative());
  if (!qp.ext->acks.ack_due(ctx.now_ns)) return;
  send_ext_ack(qp, wire::kSyndromeAck, std::nullopt, ctx);
}

std::optional<uint64_t> ext_responder_deadline(const QueuePair& qp) {
  if (!qp.ext) return std::nullopt;
  return qp.ext->acks.deadline();
}

}  // namespace mr::transport
