#include "reference/transport/ext_responder.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"
#include "reference/wire/psn.h"

namespace mr::transport {
namespace {

enum class ExtRespState : uint8_t {
  kCheckHeaders,
  kClassifyPsn,
  kCheckPlacement,
  kCheckRkey,
  kPlace,
  kRecord,
  kAcknowledge,
  kNakInvalidRequest,
  kNakRemoteAccess,
  kNakOutOfWindow,
  kDone,
};
constexpr std::string_view kExtRespStateNames[] = {
    "CheckHeaders", "ClassifyPsn",       "CheckPlacement",  "CheckRkey",      "Place", "Record",
    "Acknowledge",  "NakInvalidRequest", "NakRemoteAccess", "NakOutOfWindow", "Done"};
static_assert(std::size(kExtRespStateNames) == static_cast<size_t>(ExtRespState::kDone) + 1);

struct ExtRequest {
  const wire::RocePacket& p;
  ext::PsnArrival arrival = ext::PsnArrival::kNew;
  ext::PacketPosition position = ext::PacketPosition::kOnly;
  std::span<uint8_t> target;  // the whole message's bytes, once the R_Key check passed
};

// The WRITE opcodes this slice places; their position in the message.
std::optional<ext::PacketPosition> write_position(uint8_t opcode) {
  switch (opcode) {
    case wire::kOpRcRdmaWriteFirst:
      return ext::PacketPosition::kFirst;
    case wire::kOpRcRdmaWriteMiddle:
      return ext::PacketPosition::kMiddle;
    case wire::kOpRcRdmaWriteLast:
      return ext::PacketPosition::kLast;
    case wire::kOpRcRdmaWriteOnly:
      return ext::PacketPosition::kOnly;
    default:
      return std::nullopt;
  }
}

// An Ext ACK (syndrome 0x1F, BTH PSN = C) or NAK (BTH PSN = the packet's), with the
// SACKETH the policy builds: it echoes the newest packet answered.
void send_ext_ack(QueuePair& qp, uint8_t syndrome, std::optional<uint32_t> nak_psn,
                  QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const uint32_t psn = nak_psn.value_or(ext.window.cumulative());
  wire::RocePacket ack = ctx.factory.start(qp, wire::kOpRcAcknowledge, psn);
  ack.bth.version = wire::kExtVersion;
  ack.aeth = wire::Aeth{syndrome, ext.completions.msn()};
  ack.sacketh = ext.acks.build(ext.window, ext.cursor, ctx.now_ns);
  ctx.send(ack);
  ++ctx.counters.ext_acks_sent;
}

// Answers the packet for the ACK policy: it echoes it, and counts it towards the next ACK.
void answer(QueuePair& qp, const ExtRequest& r, bool duplicate, const QpContext& ctx) {
  const wire::Mxh& mxh = *r.p.mxh;
  const auto* v4 = std::get_if<wire::Ipv4>(&r.p.ip);
  const auto* v6 = std::get_if<wire::Ipv6>(&r.p.ip);
  const unsigned ecn = v4 ? (v4->tos & 3U) : v6 ? (v6->tc & 3U) : 0;
  qp.ext->acks.on_packet(
      {.psn = r.p.bth.psn,
       .duplicate = duplicate,
       .ack_request = mxh.ar != 0,
       .ce = ecn == 3,
       .ev = mxh.ev,
       .plane = mxh.plane,
       .tx_timestamp = mxh.tsv ? std::optional<uint32_t>(mxh.tx_timestamp) : std::nullopt,
       .arrived_ns = ctx.now_ns});
}

ExtRespState check_headers(ExtRequest& r) {
  const auto position = write_position(r.p.bth.opcode);
  if (!r.p.mxh || !r.p.reth || !position) return ExtRespState::kNakInvalidRequest;
  r.position = *position;
  return ExtRespState::kClassifyPsn;
}

ExtRespState classify_psn(QueuePair& qp, ExtRequest& r, QpContext& ctx) {
  r.arrival = qp.ext->window.classify(r.p.bth.psn);
  switch (r.arrival) {
    case ext::PsnArrival::kNew:
      return ExtRespState::kCheckPlacement;
    case ext::PsnArrival::kDuplicate:
      ++ctx.counters.duplicate_request;
      answer(qp, r, /*duplicate=*/true, ctx);  // placed before: not again (MR-OO-08)
      return ExtRespState::kAcknowledge;
    case ext::PsnArrival::kBeyondWindow:
      return ExtRespState::kNakOutOfWindow;
  }
  return ExtRespState::kDone;
}

// Section 24's length rules.
ExtRespState check_placement(const QueuePair& qp, const ExtRequest& r) {
  const auto error = ext::placement_error(r.position, r.p.mxh->offset, r.p.payload.size(),
                                          r.p.reth->dlen, qp.attr.path_mtu);
  return error ? ExtRespState::kNakInvalidRequest : ExtRespState::kCheckRkey;
}

// MR-OO-03: the whole message's range, whichever packet arrives first.
ExtRespState check_rkey(const QueuePair& qp, ExtRequest& r, const QpContext& ctx) {
  const wire::Reth& reth = *r.p.reth;
  if (reth.dlen == 0) return ExtRespState::kRecord;
  if ((qp.attr.access_flags & kQpRemoteWrite) == 0) return ExtRespState::kNakRemoteAccess;
  auto span =
      ctx.memory.resolve_remote(reth.rkey, qp.init.pd, reth.va, reth.dlen, memory::kRemoteWrite);
  if (!span) return ExtRespState::kNakRemoteAccess;
  r.target = *span;
  return ExtRespState::kPlace;
}

// MR-OO-01: at RETH VA + MXH offset, in whatever order the packets come.
ExtRespState place(const ExtRequest& r) {
  const auto payload = r.p.payload;
  if (!payload.empty())
    std::memcpy(r.target.data() + r.p.mxh->offset, payload.data(), payload.size());
  return ExtRespState::kRecord;
}

ExtRespState record(QueuePair& qp, ExtRequest& r, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  ext.window.record(r.p.bth.psn);
  if (r.position == ext::PacketPosition::kLast || r.position == ext::PacketPosition::kOnly)
    ext.completions.on_last_packet(r.p.mxh->msn, r.p.bth.psn);
  // WRITE without immediate has no receive completion: completing it moves the MSN.
  (void)ext.completions.advance(ext.window.cumulative());
  answer(qp, r, /*duplicate=*/false, ctx);
  return ExtRespState::kAcknowledge;
}

ExtRespState acknowledge(QueuePair& qp, QpContext& ctx) {
  flush_ext_ack(qp, ctx);
  return ExtRespState::kDone;
}

// MR-NK-07: without NONFATAL a Part I error NAKs the packet and ends the QP.
ExtRespState nak_fatal(QueuePair& qp, const ExtRequest& r, uint8_t code, QpContext& ctx) {
  if (r.p.mxh) answer(qp, r, /*duplicate=*/false, ctx);  // the NAK echoes its EV and plane
  send_ext_ack(qp, static_cast<uint8_t>(wire::kSyndromeClassNak | code), r.p.bth.psn, ctx);
  enter_error(qp, ctx);
  return ExtRespState::kDone;
}

// MR-NK-06: not placed, not recorded; NAK 0x67 with its PSN.
ExtRespState nak_out_of_window(QueuePair& qp, const ExtRequest& r, QpContext& ctx) {
  ++ctx.counters.out_of_seq_request;
  qp.ext->acks.on_beyond_window();
  answer(qp, r, /*duplicate=*/false, ctx);
  send_ext_ack(qp, wire::kSyndromeClassNak | 0x07, r.p.bth.psn, ctx);
  return ExtRespState::kDone;
}

}  // namespace

void respond_ext(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!qp.ext) return;
  ExtRequest r{.p = p};
  ExtRespState state = ExtRespState::kCheckHeaders;
  // Bounded: every state moves towards kDone.
  for (int steps = 0; state != ExtRespState::kDone && steps < 16; ++steps) {
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
      case ExtRespState::kCheckRkey:
        state = check_rkey(qp, r, ctx);
        break;
      case ExtRespState::kPlace:
        state = place(r);
        break;
      case ExtRespState::kRecord:
        state = record(qp, r, ctx);
        break;
      case ExtRespState::kAcknowledge:
        state = acknowledge(qp, ctx);
        break;
      case ExtRespState::kNakInvalidRequest:
        state = nak_fatal(qp, r, 0x01, ctx);
        break;
      case ExtRespState::kNakRemoteAccess:
        state = nak_fatal(qp, r, 0x02, ctx);
        break;
      case ExtRespState::kNakOutOfWindow:
        state = nak_out_of_window(qp, r, ctx);
        break;
      case ExtRespState::kDone:
        break;
    }
  }
}

void flush_ext_ack(QueuePair& qp, QpContext& ctx) {
  if (!qp.ext || !qp.ext->acks.ack_due(ctx.now_ns)) return;
  send_ext_ack(qp, wire::kSyndromeAck, std::nullopt, ctx);
}

std::optional<uint64_t> ext_responder_deadline(const QueuePair& qp) {
  if (!qp.ext) return std::nullopt;
  return qp.ext->acks.deadline();
}

}  // namespace mr::transport
