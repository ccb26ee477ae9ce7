#include "reference/transport/ext_requester.h"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "reference/transport/completer.h"
#include "reference/transport/packet_gather.h"
#include "reference/transport/read_responses.h"
#include "reference/transport/receive_scatter.h"
#include "reference/transport/requester.h"
#include "reference/transport/timers.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"
#include "reference/wire/psn.h"

namespace mr::transport {
namespace {

enum class ExtReqState : uint8_t { kRetransmit, kGetWqe, kCheckWindow, kTransmit, kDone };
constexpr std::string_view kExtReqStateNames[] = {"Retransmit", "GetWqe", "CheckWindow", "Transmit",
                                                  "Done"};
static_assert(std::size(kExtReqStateNames) == static_cast<size_t>(ExtReqState::kDone) + 1);

// The started, uncompleted WQE whose PSNs include `psn`.
SendWqe* wqe_of(QueuePair& qp, uint32_t psn) {
  for (SendWqe& w : qp.sq) {
    if (!w.started) break;
    const int32_t d = wire::psn_diff(psn, w.first_psn);
    if (d >= 0 && static_cast<uint32_t>(d) < w.npsn) return &w;
  }
  return nullptr;
}

bool is_atomic(SendOpcode op) {
  return op == SendOpcode::kCompareSwap || op == SendOpcode::kFetchAdd;
}

// READ and ATOMIC: one request packet, answered by responses (READ) or an
// ATOMIC_ACKNOWLEDGE that the WQE waits for; their PSNs are tracked as an OutstandingRead.
bool answered_by_response(SendOpcode op) { return op == SendOpcode::kRead || is_atomic(op); }

bool consumes_receive_wqe(SendOpcode op) {
  return op == SendOpcode::kSend || op == SendOpcode::kSendWithImm ||
         op == SendOpcode::kSendWithInv || op == SendOpcode::kWriteWithImm;
}

// The MXH of every Ext request packet (section 19.2): the entry it leaves on, RETX on a
// retransmission, the TX timestamp the ACK echoes for the RTT, and the message's MSN, RQSN
// and byte offset. The caller adds AR and Pending.
wire::Mxh request_mxh(const ext::EvEntry& entry, bool retx, uint64_t now_ns, uint32_t msn = 0,
                      uint32_t rqsn = 0, uint32_t offset = 0) {
  wire::Mxh mxh;
  mxh.retx = retx ? 1 : 0;
  mxh.tsv = 1;
  mxh.tx_timestamp = static_cast<uint32_t>(now_ns);
  mxh.msn = msn;
  mxh.rqsn = rqsn;
  mxh.offset = offset;
  mxh.ev = entry.ev;
  mxh.plane = entry.plane;
  return mxh;
}

// Section 20.3: the EV set entry a transmission of `psn` goes out on (a retransmission
// leaves the entry its previous transmission used, MR-MU-08). None when no entry is usable
// (MR-MU-04): the work waits, and the QP looks again after T_PROBE_INTERVAL.
std::optional<ext::EvEntry> choose_entry(ext::ExtQpState& ext, uint32_t psn, bool retransmission,
                                         const QpContext& ctx) {
  const uint64_t now_ns = ctx.now_ns;
  std::optional<size_t> previous;
  if (retransmission)
    if (auto ev = ext.sent.last_ev(psn)) previous = ext.evs.find(*ev);
  std::optional<size_t> i;
  if (!previous) {
    i = ext.selector.first_transmission(ext.evs, now_ns);
  } else if (ext.evs.usable(*previous, now_ns) &&
             !ctx.decide.extension.retransmits_on_other_ev) {  // the ext-retx-same-ev mutant
    i = previous;
  } else {
    i = ext.selector.retransmission(ext.evs, now_ns, *previous);
  }
  if (!i) {
    ext.ev_retry_ns = now_ns + ext.evs.parameters().probe_interval_ns;
    return std::nullopt;
  }
  ext.ev_retry_ns.reset();
  return ext.evs.entry(*i);
}

// Section 26.7 with CREDIT agreed: whether a request packet of `payload` bytes may leave
// (MR-CR-02, first transmissions and retransmissions alike); counted when it may not.
bool has_credit(const ext::ExtQpState& ext, uint32_t payload, QpContext& ctx) {
  if (!ext.credit_tx || ext.credit_tx->may_send(payload)) return true;
  ++ctx.counters.ext_credit_waits;
  return false;
}

// The MXH Pending field now (MR-CR-04): the posted bytes not yet sent, plus a PMTU for each
// retransmission waiting. 0 without CREDIT (MR-CR-01).
uint8_t pending_now(const ext::ExtQpState& ext, uint32_t mtu) {
  if (!ext.credit_tx) return 0;
  return ext::pending_field(ext.unsent_credit_bytes + uint64_t{mtu} * ext.retransmit.size());
}

// A request packet of `payload` bytes leaves: its cost is spent and no longer pending, and
// the MXH Pending field says what is still to send after it (MR-CR-04): the posted bytes not
// yet sent, plus a PMTU for each retransmission waiting. 0 without CREDIT (MR-CR-01), and
// from the ext-pending-not-reported mutant.
uint8_t spend_credit(ext::ExtQpState& ext, uint32_t payload, bool first_transmission, uint32_t mtu,
                     const QpContext& ctx) {
  if (!ext.credit_tx) return 0;
  ext.credit_tx->on_sent(payload);
  if (first_transmission)
    ext.unsent_credit_bytes -= std::min(ext.unsent_credit_bytes, ext::credit_bytes(payload));
  return ctx.decide.extension.reports_pending ? pending_now(ext, mtu) : 0;
}

// Section 26.3 with CC agreed: whether the pacer lets a request packet of `payload` bytes
// leave now (MR-SC-24: first transmissions, and retransmissions of trimmed packets; no
// payload, no wait).
bool paced(ext::ExtQpState& ext, uint32_t payload, const QpContext& ctx) {
  return !ext.cc || payload == 0 || ext.cc->paced(payload, ctx.now_ns);
}

// What a paced packet takes from the bucket once it has left. Only those: a retransmission
// the pacer let pass unasked (MR-SC-24) must not leave a debt that holds back new data (a
// burst of timeouts behind a window of B_CWND_MIN left 288 us of it).
void take_paced(ext::ExtQpState& ext, uint32_t payload) {
  if (ext.cc) ext.cc->take(payload);
}

// Retransmissions wait for credit (a PMTU's worth: the front one may be shorter). Meanwhile
// no PSN times out or is probed (MR-CR-06): the wait is the receiver's pacing, not a loss,
// and a timeout would only queue more packets behind the same missing credit.
bool waiting_for_credit(const QueuePair& qp) {
  const ext::ExtQpState& ext = *qp.ext;
  return ext.credit_tx && !ext.retransmit.empty() && !ext.credit_tx->may_send(qp.attr.path_mtu);
}

// The payload of packet `index` of WQE `w` (a READ or ATOMIC request carries none).
uint32_t packet_payload(const SendWqe& w, uint32_t index, uint32_t mtu) {
  if (answered_by_response(w.wr.opcode)) return 0;
  const uint32_t offset = index * mtu;
  return std::min(mtu, w.length - std::min(w.length, offset));
}

// The payload of the packet of WQE `w` that carries `psn`.
uint32_t packet_payload_at(const SendWqe& w, uint32_t psn, uint32_t mtu) {
  return packet_payload(w, static_cast<uint32_t>(wire::psn_diff(psn, w.first_psn)), mtu);
}

// Work waits for a grant: retransmissions, or the next new packet (only credit, not the
// window, holding it back: a PMTU's worth missing).
bool blocked_on_credit(const QueuePair& qp) {
  const ext::ExtQpState& ext = *qp.ext;
  return ext.credit_tx && !ext.credit_tx->may_send(qp.attr.path_mtu) &&
         (!ext.retransmit.empty() || qp.send_index < qp.sq.size());
}

// When work has waited for a grant longer than a receiver that knew of it may take
// (T_CR_TIMEOUT + T_CR_GRANT_DELAY, MR-CR-14) plus a round trip, the receiver does not know:
// every packet of ours was lost, or the newest it saw said Pending 0 (a message that was
// all there was, and new work posted since). The next packet's cost goes back to the credit
// (CreditSender::refund), so that it leaves, its Pending tells the receiver our demand,
// and grants follow; the wait starts again. For a lost packet that is exact (the receiver
// never counted it); for new work it is one packet beyond the limit per wait (spec 26.7).
// Refunding every lost packet at once instead let each sender of a 128-to-1 incast resend
// its dropped unsolicited burst unpaced (12,171 drops).
// When the stall bound of work waiting for credit ends; 0 (at once) before the wait is timed.
uint64_t credit_stall_due_ns(const ext::ExtQpState& ext) {
  if (!ext.credit_stall_ns) return 0;
  return *ext.credit_stall_ns + ext.credit_stall_bound_ns + ext.rto.srtt_ns();
}

void take_back_stalled_credit(QueuePair& qp, const QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  if (!ext.credit_stall_ns) ext.credit_stall_ns = ctx.now_ns;
  if (ctx.now_ns < credit_stall_due_ns(ext)) return;
  ext.credit_stall_ns = ctx.now_ns;
  if (ext.retransmit.empty()) {
    const SendWqe& w = qp.sq[qp.send_index];
    ctx.step("ext-requester", "CreditStall", qp.next_psn);
    ext.credit_tx->refund(packet_payload(w, w.next_packet, qp.attr.path_mtu));
    return;
  }
  const ext::Retransmission r = ext.retransmit.front();
  const SendWqe* w = wqe_of(qp, r.psn);
  if (w == nullptr) {  // completed since it was queued: nothing to send
    ext.retransmit.pop_front();
    return;
  }
  ctx.step("ext-requester", "CreditStall", r.psn);
  ext.credit_tx->refund(packet_payload_at(*w, r.psn, qp.attr.path_mtu));
}

// Packet `index` of WQE `w`: MXH with the message's MSN, RQSN and the payload's offset, a
// WRITE's RETH of the whole message (MR-OO-02), RETX on every retransmission, AR on the tail;
// on the entry choose_entry() gives, in EV mode UDP (MR-MU-02, MR-MU-10). False, and nothing
// sent, when no entry is usable (MR-MU-04).
bool send_ext_data(QueuePair& qp, SendWqe& w, uint32_t index, bool retransmission, bool probe,
                   QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const uint32_t psn = wire::psn_add(w.first_psn, index);
  const std::optional<ext::EvEntry> entry = choose_entry(ext, psn, retransmission, ctx);
  if (!entry) return false;
  const uint32_t mtu = qp.attr.path_mtu;
  const uint32_t offset = index * mtu;
  const uint32_t n = packet_payload(w, index, mtu);
  const uint8_t opcode = data_opcode(w.wr.opcode, index, w.npsn);
  const auto info = wire::opcode_info(opcode);
  wire::RocePacket p = ctx.factory.start(qp, opcode, psn);
  p.bth.version = wire::kExtVersion;
  // The ext-retx-not-marked mutant sends its retransmissions as first transmissions.
  const bool marked = retransmission && ctx.decide.extension.marks_retransmissions;
  wire::Mxh mxh = request_mxh(*entry, marked, ctx.now_ns, w.msn, w.rqsn, offset);
  if (retransmission && !ctx.decide.extension.timestamps_retransmissions) {
    mxh.tsv = 0;  // the ext-retx-without-timestamp mutant (MR-SC-11)
    mxh.tx_timestamp = 0;
  }
  // The tail asks for an ACK at once: without it the last PSNs wait T_EXT_ACK_DELAY.
  const bool tail = index + 1 == w.npsn && (retransmission || qp.send_index + 1 >= qp.sq.size());
  mxh.ar = tail || probe ? 1 : 0;
  mxh.pending = spend_credit(ext, n, !retransmission, mtu, ctx);
  p.mxh = mxh;
  // Table 19.1: every WRITE packet has a RETH, not only the FIRST and ONLY as in Part I.
  if (info->is(wire::kWrite)) p.reth = wire::Reth{w.wr.remote_addr, w.wr.rkey, w.length};
  if (info->has(wire::kImmDt)) p.imm_dt = wire::ImmDt{w.wr.imm_data};
  if (info->has(wire::kIeth)) p.ieth = wire::Ieth{w.wr.invalidate_rkey};
  if (w.wr.solicited && info->is(wire::kEnd) && (info->is(wire::kSend) || info->has(wire::kImmDt)))
    p.bth.solicited = 1;
  ctx.send_on_entry(p, *entry, PacketGather::of(qp, w, offset, n, ctx.memory).pieces());
  ext.sent.on_sent(psn, ctx.now_ns, mxh.ev, mxh.plane, probe);
  if (!retransmission) ++ext.psns_in_flight;
  if (retransmission && !probe) {  // the retransmission a timeout's watch waits for
    for (ext::ExtQpState::RtoWatch& watch : ext.rto_watches) {
      if (watch.psn != psn || watch.retransmitted) continue;
      watch = {psn, watch.entry, true, mxh.ev, mxh.tx_timestamp};
    }
  }
  return true;
}

// A READ request (first issue or a reissue from response PSN `fields.first_psn`, section
// 21.3): MXH with the message's MSN and the offset of the first byte it asks for, RETH of
// the rest. Every PSN of the READ still outstanding is recorded as sent again, so that its
// timer restarts with the request. An ATOMIC is sent the same way, with its AtomicETH
// (table 19.1), again with RETX = 1 when its ATOMIC_ACKNOWLEDGE does not come (the responder
// answers the duplicate with the saved value). False, and nothing sent, when no entry is
// usable.
bool send_read_request(QueuePair& qp, SendWqe& w, const ext::ReadRequestFields& fields,
                       QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const std::optional<ext::EvEntry> entry = choose_entry(ext, fields.first_psn, fields.retx, ctx);
  if (!entry) return false;
  const bool cas = w.wr.opcode == SendOpcode::kCompareSwap;
  const uint8_t opcode = !is_atomic(w.wr.opcode) ? wire::kOpRcRdmaReadRequest
                         : cas                   ? wire::kOpRcCompareSwap
                                                 : wire::kOpRcFetchAdd;
  wire::RocePacket p = ctx.factory.start(qp, opcode, fields.first_psn);
  p.bth.version = wire::kExtVersion;
  p.bth.ackreq = 1;
  wire::Mxh mxh =
      request_mxh(*entry, fields.retx, ctx.now_ns, fields.msn, /*rqsn=*/0, fields.mxh_offset);
  mxh.ar = 1;  // its PSNs are acknowledged when it arrives: at once, not after the delay
  mxh.pending = spend_credit(ext, 0, !fields.retx, qp.attr.path_mtu, ctx);
  p.mxh = mxh;
  if (is_atomic(w.wr.opcode)) {
    p.atomic_eth = wire::AtomicEth{w.wr.remote_addr, w.wr.rkey, cas ? w.wr.swap : w.wr.compare_add,
                                   cas ? w.wr.compare_add : 0};
  } else {
    p.reth = wire::Reth{fields.va, w.wr.rkey, fields.dma_length};
  }
  ctx.send_on_entry(p, *entry);
  for (uint32_t i = 0; i < w.npsn; ++i) {
    const uint32_t psn = wire::psn_add(w.first_psn, i);
    if (!fields.retx) {
      ext.sent.on_sent(psn, ctx.now_ns, mxh.ev, mxh.plane, false);
      ++ext.psns_in_flight;
    } else if (ext.sent.outstanding(psn)) {
      ext.sent.on_sent(psn, ctx.now_ns, mxh.ev, mxh.plane, false);
    }
  }
  return true;
}

// The READ again from its first missing response, or, when every response is in but its
// PSNs are not yet acknowledged (the ACK was lost), from its last PSN: one response and an
// ACK come back.
bool reissue_read(QueuePair& qp, SendWqe& w, QpContext& ctx) {
  auto read = qp.ext->reads.find(w.first_psn);
  if (read == qp.ext->reads.end()) return true;
  // The ext-read-reissued-whole mutant asks for every response again (MR-SA-15).
  const uint32_t m = ctx.decide.extension.reissues_from_missing
                         ? read->second.first_missing(ctx.now_ns, 0).value_or(w.last_psn())
                         : w.first_psn;
  if (!send_read_request(qp, w, read->second.request_from(m), ctx)) return false;
  read->second.reissue(m, ctx.now_ns);  // sent: its clock restarts
  return true;
}

// Section 22.3: a RESYNC (code 1, OP_ERROR) for packets [index, index + count) of failed
// work request `w`: MXH as the data would carry, RETX on a retransmission, AR = 1; END when
// the range reaches the message's last PSN. Each PSN of it is recorded as sent, so that it
// stays outstanding until an ACK covers it and times out into another RESYNC (MR-NF-13);
// those never sent before leave their cost behind (they will never go as data). False, and
// nothing sent, when no entry is usable.
bool send_resync(QueuePair& qp, SendWqe& w, uint32_t index, uint32_t count, bool retransmission,
                 bool probe, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const uint32_t first = wire::psn_add(w.first_psn, index);
  const std::optional<ext::EvEntry> entry = choose_entry(ext, first, retransmission, ctx);
  if (!entry) return false;
  const uint32_t mtu = qp.attr.path_mtu;
  wire::RocePacket p = ctx.factory.start(qp, wire::kOpExtResync, first);
  p.bth.version = wire::kExtVersion;
  p.bth.ackreq = 1;
  wire::Mxh mxh = request_mxh(*entry, retransmission, ctx.now_ns, w.msn, w.rqsn,
                              answered_by_response(w.wr.opcode) ? 0 : index * mtu);
  mxh.ar = 1;
  // Section 26.7: a RESYNC costs no credit; the PSNs it covers that never left as data are no
  // longer pending.
  if (!answered_by_response(w.wr.opcode)) {
    for (uint32_t i = std::max(index, w.next_packet); i < index + count; ++i)
      ext.unsent_credit_bytes -=
          std::min(ext.unsent_credit_bytes, ext::credit_bytes(packet_payload(w, i, mtu)));
  }
  mxh.pending = pending_now(ext, mtu);
  p.mxh = mxh;
  p.rsyneth = wire::Rsyneth{.code = ext.failed_wqes.at(w.first_psn).resync_code,
                            .end = index + count == w.npsn ? 1U : 0U,
                            .count = count};
  ctx.send_on_entry(p, *entry);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t psn = wire::psn_add(first, i);
    if (psn == ext.sent.next_psn()) {
      ext.sent.on_sent(psn, ctx.now_ns, mxh.ev, mxh.plane, false);
      ++ext.psns_in_flight;
    } else if (ext.sent.outstanding(psn)) {
      ext.sent.on_sent(psn, ctx.now_ns, mxh.ev, mxh.plane, probe);  // a probe: RTO unchanged
    }
  }
  return true;
}

// MR-NF-05, MR-NF-13: the RESYNC of failed work request `w` for the PSNs it has sent, from
// the oldest still outstanding to the newest; the rest follow when the window lets them
// (transmit). True when nothing is left to cover.
bool resync_message(QueuePair& qp, SendWqe& w, bool retransmission, bool probe, QpContext& ctx) {
  const uint32_t sent = answered_by_response(w.wr.opcode) ? w.npsn : w.next_packet;
  for (uint32_t i = 0; i < sent; ++i) {
    if (qp.ext->sent.outstanding(wire::psn_add(w.first_psn, i)))
      return send_resync(qp, w, i, sent - i, retransmission, probe, ctx);
  }
  return true;
}

// Section 25.2: a PROBE on entry i (ASSUMED_BAD: sent on it all the same), PSN the next the
// QP would assign (it consumes none), MXH with the entry's EV and plane, MSN, RQSN and offset
// 0 and the TX timestamp that the PRB = 1 answer echoes; no payload. Never on a DENIED entry
// (MR-PF-11: due_probes() gives ASSUMED_BAD ones only).
void send_probe(QueuePair& qp, size_t i, QpContext& ctx) {
  const ext::EvEntry& e = qp.ext->evs.entry(i);
  ctx.step("ext-requester", "Probe", qp.next_psn);
  wire::RocePacket p = ctx.factory.start(qp, wire::kOpExtProbe, qp.next_psn);
  p.bth.version = wire::kExtVersion;
  p.bth.ackreq = 1;
  p.mxh = request_mxh(e, /*retx=*/false, ctx.now_ns);  // MSN, RQSN and offset 0
  ctx.send_on_entry(p, e);
  ++ctx.counters.ext_probes_sent;
}

// Section 20.4's feedback table: ECE = 1 on any ACK or NAK, TRM = 1 on an ACK, or a NAK
// 0x65 says the echoed path marked or cut the packet; a clean ACK says it did not; the other
// NAKs (a last-hop trim, an operation error, a shortage, RNR) are not the path's, nor is a
// PROBE's reply.
ext::EvFeedback path_feedback(uint8_t syndrome, const wire::Sacketh& s) {
  if (s.prb) return ext::EvFeedback::kNone;
  if (s.ece || syndrome == wire::kNakTrimmed) return ext::EvFeedback::kMarked;
  if (wire::is_ack(syndrome)) return s.trm ? ext::EvFeedback::kMarked : ext::EvFeedback::kClean;
  return ext::EvFeedback::kNone;
}

// Section 25.1's timers for ASSUMED_BAD entries: with PATHPROBE the PROBEs due (MR-PF-03),
// without it the entries whose hold-down has passed go back to GOOD (MR-PF-13).
void run_path_probes(QueuePair& qp, QpContext& ctx) {
  ext::EvTable& evs = qp.ext->evs;
  if (!evs.any_assumed_bad()) return;
  const ExtensionDecisions& decide = ctx.decide.extension;
  // The ext-no-path-probes mutant lets the probes fall due (their timers move on, so the QP's
  // deadline does too) but sends none.
  for (size_t i : evs.due_probes(ctx.now_ns))
    if (decide.probes_assumed_bad_evs) send_probe(qp, i, ctx);
}

// Section 26.2's bytes in flight, in packets: sent and not acknowledged, less those a trim
// NAK reported cut (they are in no queue until they are sent again).
uint64_t in_network(const ext::ExtQpState& ext) {
  return ext.psns_in_flight - std::min<uint64_t>(ext.psns_in_flight, ext.sent.trimmed());
}

void fail_operation(QueuePair& qp, uint32_t psn, const ext::FailedWork& failure, QpContext& ctx);

ExtReqState retransmit(QueuePair& qp, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  std::set<uint32_t> reissued;
  // Trimmed PSNs the window holds back wait at the front; the others (timeouts, SACK
  // repairs, which the window does not hold back) go past them.
  std::vector<ext::Retransmission> held;
  const auto hold_back = [&] {
    for (auto it = held.rbegin(); it != held.rend(); ++it) ext.retransmit.push_front(*it);
  };
  while (!ext.retransmit.empty()) {
    const ext::Retransmission r = ext.retransmit.front();
    ext.retransmit.pop_front();
    SendWqe* w = wqe_of(qp, r.psn);
    if (w == nullptr) continue;
    // Acknowledged since it was queued; a READ's PSNs may be acknowledged while its
    // responses are still missing.
    const bool read = answered_by_response(w->wr.opcode);
    if (!read && !ext.sent.outstanding(r.psn) && ctx.decide.extension.retransmits_only_outstanding)
      continue;
    // A failed work request's PSNs go again as its RESYNC, not as data (MR-NF-13; the
    // ext-resync-covered-data-resent mutant sends the data), and need no credit (26.7).
    const bool resync =
        ext.failed_wqes.contains(w->first_psn) && ctx.decide.extension.resends_resync;
    // A trimmed packet left the network (the NAK said so): it goes again as new data does,
    // inside the congestion window and paced (MR-SC-24), or a trim-retransmit loop runs at
    // line rate. The other retransmissions (timeouts, SACK repairs, the tail-loss probe) are
    // of packets still counted in flight, held back by neither.
    const uint64_t mtu = qp.attr.path_mtu;
    const uint32_t index = static_cast<uint32_t>(wire::psn_diff(r.psn, w->first_psn));
    const uint32_t payload = packet_payload(*w, index, qp.attr.path_mtu);
    // Trimmed packets keep their order: once one waits, the ones behind it wait too.
    if (r.cause == ext::RetransmitCause::kTrim && !read && !resync && ext.cc &&
        (!held.empty() || !ext.cc->may_send(in_network(ext) * mtu, mtu) ||
         !paced(ext, payload, ctx))) {
      held.push_back(r);
      continue;
    }
    // MR-CR-06: a retransmission needs credit as new data does; it and the rest wait (not
    // the ext-retransmits-without-credit mutant's).
    if (!resync && ext.credit_tx && ctx.decide.extension.retransmits_within_credit &&
        !has_credit(ext, payload, ctx)) {
      ext.retransmit.push_front(r);
      hold_back();
      return ExtReqState::kDone;
    }
    ctx.step("ext-requester", "Retransmit", r.psn);
    if (resync || read) {
      // One RESYNC, or one reissue of the READ, answers every PSN of it queued now.
      if (reissued.contains(w->first_psn)) continue;
      const bool sent = resync ? resync_message(qp, *w, /*retransmission=*/true,
                                                r.cause == ext::RetransmitCause::kProbe, ctx)
                               : reissue_read(qp, *w, ctx);
      if (!sent) {
        ext.retransmit.push_front(r);
        hold_back();
        return ExtReqState::kDone;
      }
      reissued.insert(w->first_psn);
      ++ctx.counters.ext_retransmitted;
      continue;
    }
    // MR-NF-14: a retransmission whose source cannot be read any more (its region was
    // deregistered) goes as a RESYNC with code 2 when RESYNC is agreed, and the work request
    // completes with a local protection error; the ext-local-error-sends-zeros mutant sends
    // the zeros instead.
    if (!read && ext.agreement.has(wire::kMxcapResync) &&
        !PacketGather::of(qp, *w, index * qp.attr.path_mtu, payload, ctx.memory).readable() &&
        ctx.decide.extension.resyncs_local_errors) {
      fail_operation(qp, r.psn, {.status = WcStatus::kLocalProtectionError, .resync_code = 2}, ctx);
      continue;
    }
    if (!send_ext_data(qp, *w, index, /*retransmission=*/true,
                       r.cause == ext::RetransmitCause::kProbe, ctx)) {
      ext.retransmit.push_front(r);  // no usable entry: it waits, and so does new work
      hold_back();
      return ExtReqState::kDone;
    }
    if (r.cause == ext::RetransmitCause::kTrim) take_paced(ext, payload);
    ++ctx.counters.ext_retransmitted;
  }
  hold_back();
  // New data waits behind held trimmed PSNs (the window is full for both).
  return held.empty() ? ExtReqState::kGetWqe : ExtReqState::kDone;
}

ExtReqState get_wqe(QueuePair& qp, SendWqe*& w) {
  if (qp.send_index >= qp.sq.size()) return ExtReqState::kDone;
  w = &qp.sq[qp.send_index];
  if (!w->started) {
    w->started = true;
    w->first_psn = qp.next_psn;
    w->npsn = packets_for(w->length, qp.attr.path_mtu);
    w->msn = qp.ext->next_msn;
    qp.ext->next_msn = (qp.ext->next_msn + 1) & wire::kPsnMask;
    if (consumes_receive_wqe(w->wr.opcode)) {
      w->rqsn = qp.ext->next_rqsn;
      qp.ext->next_rqsn = (qp.ext->next_rqsn + 1) & wire::kPsnMask;
    }
  }
  return ExtReqState::kCheckWindow;
}

// MR-SA-07: a new PSN only inside the window the receiver granted; with CC, only while the
// bytes in flight leave room in the congestion window (section 26.2); with CREDIT, only
// within the credit limit (section 26.7).
ExtReqState check_window(QueuePair& qp, const SendWqe& w, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  // A READ is one request packet, however many PSNs it takes: its first PSN must be inside
  // the window (its others never travel as packets; the responder consumes them in order
  // when it executes it, section 21.3). A window smaller than a READ would stall it forever.
  if (!ext.sent.may_send_new(qp.next_psn)) return ExtReqState::kDone;
  // MR-RD-12 as in Part I: never more READs and ATOMICs outstanding than max_rd_atomic.
  if (answered_by_response(w.wr.opcode) &&
      ext.reads.size() >= std::max<uint32_t>(1, qp.attr.max_rd_atomic))
    return ExtReqState::kDone;
  const uint64_t mtu = qp.attr.path_mtu;
  // The ext-cwnd-ignored mutant sends whatever is in flight.
  if (ext.cc && !ext.cc->may_send(in_network(ext) * mtu, mtu) && ctx.decide.extension.respects_cwnd)
    return ExtReqState::kDone;
  const bool resync = ext.failed_wqes.contains(w.first_psn);  // costs no credit (26.7)
  // A READ's cost is demand for credit (its responses' bytes) but no payload to pace.
  const uint32_t cost = packet_payload(w, w.next_packet, qp.attr.path_mtu);
  if (!resync && !has_credit(ext, cost, ctx)) return ExtReqState::kDone;
  if (!resync && !answered_by_response(w.wr.opcode) && !paced(ext, cost, ctx))
    return ExtReqState::kDone;
  return ExtReqState::kTransmit;
}

// The rest of a failed work request, as RESYNCs over as much of it as the window takes
// (MR-NF-05: none of its PSNs goes as data).
ExtReqState transmit_resync(QueuePair& qp, SendWqe& w, QpContext& ctx) {
  uint32_t count = 0;
  while (w.next_packet + count < w.npsn && count < 0xffff &&
         qp.ext->sent.may_send_new(wire::psn_add(qp.next_psn, count)))
    ++count;
  if (count == 0 ||
      !send_resync(qp, w, w.next_packet, count, /*retransmission=*/false, /*probe=*/false, ctx))
    return ExtReqState::kDone;
  w.next_packet += count;
  qp.next_psn = wire::psn_add(qp.next_psn, count);
  if (w.next_packet == w.npsn) ++qp.send_index;
  return ExtReqState::kGetWqe;
}

ExtReqState transmit(QueuePair& qp, SendWqe& w, QpContext& ctx) {
  if (qp.ext->failed_wqes.contains(w.first_psn)) return transmit_resync(qp, w, ctx);
  if (answered_by_response(w.wr.opcode)) {
    const ext::ReadRequestFields fields{
        .first_psn = w.first_psn, .va = w.wr.remote_addr, .dma_length = w.length, .msn = w.msn};
    if (!send_read_request(qp, w, fields, ctx)) return ExtReqState::kDone;
    qp.ext->reads.emplace(
        w.first_psn, ext::OutstandingRead(fields, qp.attr.path_mtu,
                                          qp.ext->sent.parameters().ooo_threshold, ctx.now_ns));
    w.next_packet = w.npsn;
    qp.next_psn = wire::psn_add(qp.next_psn, w.npsn);
    ++qp.send_index;
    return ExtReqState::kGetWqe;
  }
  if (!send_ext_data(qp, w, w.next_packet, /*retransmission=*/false, /*probe=*/false, ctx))
    return ExtReqState::kDone;
  take_paced(*qp.ext, packet_payload(w, w.next_packet, qp.attr.path_mtu));
  ++w.next_packet;
  qp.next_psn = wire::psn_add(qp.next_psn, 1);
  if (w.next_packet == w.npsn) ++qp.send_index;
  return ExtReqState::kGetWqe;
}

void complete_wqe(QueuePair& qp, SendWqe& w, WcStatus status, QpContext& ctx) {
  w.completed = true;
  if (!w.wr.signaled && status == WcStatus::kSuccess) return;
  Completion c;
  c.wr_id = w.wr.wr_id;
  c.status = status;
  c.opcode = wc_opcode(w.wr.opcode);
  c.byte_len = w.length;
  c.qp_num = qp.qpn;
  ctx.complete_send(qp, c);
}

// Completes, in posting order, every WQE whose last PSN the cumulative ACK has passed (and,
// for a READ, whose responses are all in).
void retire_acknowledged(QueuePair& qp, QpContext& ctx) {
  const uint32_t cumulative = qp.ext->sent.cumulative();
  while (!qp.sq.empty() && qp.sq.front().started &&
         qp.sq.front().next_packet == qp.sq.front().npsn &&
         wire::psn_diff(cumulative, qp.sq.front().last_psn()) >= 0) {
    SendWqe& w = qp.sq.front();
    // MR-NF-06: a work request NONFATAL failed completes in error, in posting order.
    if (auto failed = qp.ext->failed_wqes.find(w.first_psn); failed != qp.ext->failed_wqes.end()) {
      complete_wqe(qp, w, failed->second.status, ctx);
      qp.ext->failed_wqes.erase(failed);
      qp.sq.pop_front();
      if (qp.send_index > 0) --qp.send_index;
      continue;
    }
    if (answered_by_response(w.wr.opcode)) {
      // Section 24: a READ completes when every response byte is placed, an ATOMIC when its
      // ATOMIC_ACKNOWLEDGE came, in posting order.
      auto read = qp.ext->reads.find(w.first_psn);
      if (read != qp.ext->reads.end() && !read->second.complete()) break;
      if (read != qp.ext->reads.end()) qp.ext->reads.erase(read);
    }
    complete_wqe(qp, w, WcStatus::kSuccess, ctx);
    qp.sq.pop_front();
    if (qp.send_index > 0) --qp.send_index;
  }
}

// The WQE of `psn` fails with `status`, and the QP with it (section 22: a fatal NAK).
void fail_at(QueuePair& qp, uint32_t psn, WcStatus status, QpContext& ctx) {
  if (SendWqe* w = wqe_of(qp, psn)) complete_wqe(qp, *w, status, ctx);
  enter_error(qp, ctx);
}

// MR-NF-05, MR-NF-06, MR-NF-09: NAK 0x68-0x6A for an outstanding PSN (or its N-th NAK 0x6B)
// fails its work request alone: it completes with the failure's status in posting order, a
// READ or ATOMIC is reissued no more, and its PSNs go as a RESYNC from the oldest outstanding
// one. A repeat NAK changes nothing.
void fail_operation(QueuePair& qp, uint32_t psn, const ext::FailedWork& failure, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  SendWqe* w = wqe_of(qp, psn);
  if (w == nullptr || ext.failed_wqes.contains(w->first_psn)) return;
  if (!answered_by_response(w->wr.opcode) && !ext.sent.outstanding(psn)) return;
  ctx.step("ext-requester", "OperationFailed", psn);
  ext.failed_wqes.emplace(w->first_psn, failure);
  ext.reads.erase(w->first_psn);
  // The ext-no-resync-after-op-nak mutant fails the work request and leaves the hole.
  if (!ctx.decide.extension.resyncs_failed_operations) {
    retire_acknowledged(qp, ctx);
    return;
  }
  if (!resync_message(qp, *w, /*retransmission=*/false, /*probe=*/false, ctx))
    ext.retransmit.push_back({psn, ext::RetransmitCause::kNak});  // when an entry is usable
  retire_acknowledged(qp, ctx);  // nothing left to cover: it completes now, in order
}

// MR-NF-08, MR-NF-09: NAK 0x6B is the receiver's lack of room, not a loss: the PSN goes again
// after T_NF_RESOURCE_DELAY x 2^(k-1) (k-th consecutive NAK, at most T_EXT_RTO_MAX), with no
// timeout counted and no EV blamed meanwhile; the N_NF_RESOURCE_RETRY-th gives the message up
// (RESYNC code 3, remote operational error).
void on_resource_nak(QueuePair& qp, uint32_t psn, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  const SendWqe* w = wqe_of(qp, psn);
  if (w == nullptr || !ext.sent.outstanding(psn) || ext.failed_wqes.contains(w->first_psn)) return;
  const uint32_t k = ++ext.resource_naks[psn];
  ctx.step("ext-requester", "ResourceNak", psn);
  if (k >= ext.resource_retry) {
    ext.resource_naks.erase(psn);
    fail_operation(qp, psn, {.status = WcStatus::kRemoteOperationError, .resync_code = 3}, ctx);
    return;
  }
  uint64_t delay = ext.resource_delay_ns;
  const bool backs_off = ctx.decide.extension.backs_off_resource_naks;  // not the mutant
  for (uint32_t i = 1; backs_off && i < k && delay < ext.rto.max_ns(); ++i) delay *= 2;
  const uint64_t due = ctx.now_ns + std::min(delay, ext.rto.max_ns());
  // A READ or ATOMIC is one request for all its PSNs: all of them, and its own timer, wait.
  for (uint32_t i = 0; i < w->npsn; ++i) ext.sent.hold(wire::psn_add(w->first_psn, i), due);
  if (auto read = ext.reads.find(w->first_psn); read != ext.reads.end()) read->second.hold(due);
  // The newest NAK's delay is the one that counts (a second NAK during the wait replaces it).
  std::erase_if(ext.rnr_waits, [&](const auto& wait) { return wait.second == psn; });
  ext.rnr_waits.emplace_back(due, psn);
}

WcStatus operation_status(uint8_t nak) {
  switch (nak) {
    case wire::kNakOpRemoteAccess:
      return WcStatus::kRemoteAccessError;
    case wire::kNakOpRemoteOperational:
      return WcStatus::kRemoteOperationError;
    default:
      return WcStatus::kRemoteInvalidRequestError;
  }
}

// MR-OO-07: a READ response's payload at its MXH offset in the READ's buffers, in whatever
// order responses come; a repeat is ignored (MR-OO-08). Missing ones are asked for again by
// N_OOO_THRESHOLD (no sooner than SRTT after the last issue) or by the RTO (section 21.3).
void place_read_response(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  if (!p.mxh) {
    ++ctx.counters.dropped_malformed;  // table 19.1: every Ext READ response has an MXH
    return;
  }
  const uint32_t psn = p.bth.psn;
  // The READ whose PSNs include it (PSNs wrap: no ordered lookup); none: a late duplicate.
  SendWqe* w = wqe_of(qp, psn);
  if (w == nullptr || w->wr.opcode != SendOpcode::kRead) return;
  auto read = ext.reads.find(w->first_psn);
  if (read == ext.reads.end()) return;
  if (p.aeth && !wire::is_ack(p.aeth->syndrome.value())) {  // MR-RD-11
    fail_at(qp, read->first, WcStatus::kBadResponseError, ctx);
    return;
  }
  const uint64_t offset = p.mxh->offset;
  if (offset + p.payload.size() > w->length ||
      offset !=
          uint64_t{static_cast<uint32_t>(wire::psn_diff(psn, read->first))} * qp.attr.path_mtu) {
    fail_at(qp, read->first, WcStatus::kBadResponseError, ctx);
    return;
  }
  if (!read->second.on_response(psn)) return;
  if (!scatter(qp, w->wr.sg_list, offset, p.payload, ctx)) {
    fail_at(qp, read->first, WcStatus::kLocalProtectionError, ctx);
    return;
  }
  if (ctx.now_ns >= read->second.issued_ns() &&
      ctx.now_ns - read->second.issued_ns() >= ext.rto.srtt_ns()) {
    if (auto m = read->second.first_missing(ctx.now_ns, UINT64_MAX))
      ext.retransmit.push_back({*m, ext::RetransmitCause::kEarlyLoss});
  }
  retire_acknowledged(qp, ctx);
}

// An ATOMIC_ACKNOWLEDGE: the first one for an outstanding ATOMIC puts the original value in
// the first 8 bytes of its gather list, host order as Part I's completer does; a repeat is
// ignored. The WQE completes in posting order (retire_acknowledged).
void take_atomic_result(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!p.atomic_ack_eth) {
    ++ctx.counters.dropped_malformed;  // table 19.1
    return;
  }
  SendWqe* w = wqe_of(qp, p.bth.psn);
  if (w == nullptr || !is_atomic(w->wr.opcode)) return;
  auto atomic = qp.ext->reads.find(w->first_psn);
  if (atomic == qp.ext->reads.end() || !atomic->second.on_response(p.bth.psn)) return;
  store_atomic_original(qp, *w, p.atomic_ack_eth->orig.value(), ctx);
}

// A trim NAK or a trimmed READ response: a loss to section 26's window, which takes a packet
// off it; the EVs are left as they are (MR-TR-06).
void on_trim(QueuePair& qp, const QpContext& ctx) {
  ext::ExtQpState& ext = *qp.ext;
  if (!ext.cc) return;
  const uint64_t mtu = qp.attr.path_mtu;
  ext.cc->on_loss(mtu, std::nullopt, ctx.now_ns, ext.psns_in_flight * mtu);
}

// Mutants only: every PSN from `from` up to the newest sent, queued for retransmission.
// Bounded by the PSNs in flight: `from` comes off the wire and may lie anywhere.
void go_back_n(QueuePair& qp, uint32_t from) {
  ext::ExtQpState& ext = *qp.ext;
  const uint32_t oldest = wire::psn_add(ext.sent.cumulative(), 1);
  if (wire::psn_diff(from, oldest) < 0) from = oldest;
  for (uint32_t psn = from; wire::psn_diff(ext.sent.next_psn(), psn) > 0;
       psn = wire::psn_add(psn, 1))
    ext.retransmit.push_back({psn, ext::RetransmitCause::kNak});
}

// The ext-nak-acknowledges mutant: an extension NAK for `psn` read as Part I reads a NAK,
// a cumulative ACK of psn - 1 (section 22 says it acknowledges nothing, MR-NK-02).
void acknowledge_before_nak(QueuePair& qp, uint32_t psn, QpContext& ctx) {
  if (ctx.decide.extension.naks_acknowledge_nothing) return;
  ext::ExtQpState& ext = *qp.ext;
  const ext::ExtAckReport report{
      .cumulative = wire::psn_add(psn, -1), .sack_ref = psn, .mpr = ext.sent.mpr()};
  const ext::AckOutcome outcome = ext.sent.on_ack(report, ctx.now_ns, ext.rto);
  ext.psns_in_flight -= std::min<uint64_t>(ext.psns_in_flight, outcome.newly_acknowledged);
  retire_acknowledged(qp, ctx);
}

}  // namespace

void run_ext_requester(QueuePair& qp, QpContext& ctx) {
  if (!qp.ext || qp.attr.state != QpState::kRts) return;
  run_path_probes(qp, ctx);
  // A wait for the pacer is this pass's, if it finds one: an older one may be past.
  if (qp.ext->cc) qp.ext->cc->forget_pacer_wait();
  ExtReqState state = ExtReqState::kRetransmit;
  SendWqe* w = nullptr;
  // Bounded: each pass sends a packet or stops; the window holds at most 128 x 255 PSNs.
  for (int steps = 0; state != ExtReqState::kDone && steps < 1 << 16; ++steps) {
    ctx.step("ext-requester", kExtReqStateNames[static_cast<size_t>(state)], qp.next_psn);
    switch (state) {
      case ExtReqState::kRetransmit:
        state = retransmit(qp, ctx);
        break;
      case ExtReqState::kGetWqe:
        state = get_wqe(qp, w);
        break;
      case ExtReqState::kCheckWindow:
        state = check_window(qp, *w, ctx);
        break;
      case ExtReqState::kTransmit:
        state = transmit(qp, *w, ctx);
        break;
      case ExtReqState::kDone:
        break;
    }
  }
}

void complete_trimmed_read_response(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!qp.ext || !p.mxh) return;
  if (!ctx.decide.extension.reissues_on_trimmed_response) return;  // the mutant waits (MR-TR-17)
  SendWqe* w = wqe_of(qp, p.bth.psn);
  if (w == nullptr || w->wr.opcode != SendOpcode::kRead) return;
  auto read = qp.ext->reads.find(w->first_psn);
  if (read == qp.ext->reads.end() || !read->second.on_trimmed(p.bth.psn)) return;
  ctx.step("ext-requester", "TrimmedReadResponse", p.bth.psn);
  // The Retransmit state reissues the READ from its first missing response.
  qp.ext->retransmit.push_back({p.bth.psn, ext::RetransmitCause::kNak});
  on_trim(qp, ctx);
}

void receive_ext_credit(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!qp.ext || !qp.ext->credit_tx || !p.creth) return;  // MR-CR-16: silently discarded
  // MR-EX-13: reserved bits are ignored on receipt (the ext-creth-reserved-checked mutant
  // drops the packet).
  if ((p.creth->resv4 != 0 || p.creth->resv8 != 0) &&
      !ctx.decide.extension.ignores_creth_reserved_bits)
    return;
  ctx.step("ext-requester", "CreditGrant", p.bth.psn);
  if (qp.ext->credit_tx->on_grant(p.creth->credit)) qp.ext->credit_stall_ns.reset();
}

void complete_ext_response(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!qp.ext) return;
  if (is_read_response(p.bth.opcode)) {
    place_read_response(qp, p, ctx);
    return;
  }
  if (!p.aeth || !p.sacketh) {
    ++ctx.counters.dropped_malformed;  // table 19.1: every Ext ACK and NAK has both
    return;
  }
  ext::ExtQpState& ext = *qp.ext;
  // MR-CR-05: an ACK or NAK with CRV = 1 carries the receiver's credit limit.
  if (p.sacketh->crv && ext.credit_tx && ext.credit_tx->on_grant(p.sacketh->credit))
    ext.credit_stall_ns.reset();
  const uint8_t syndrome = p.aeth->syndrome;
  const ExtensionDecisions& decide = ctx.decide.extension;
  // MR-SA-06: a repeated, reordered or stale ACK is processed idempotently; the
  // ext-stale-ack-fails-qp mutant takes one behind its cumulative PSN for an error.
  if (!decide.tolerates_stale_acks && !wire::is_nak(syndrome) &&
      wire::psn_diff(p.bth.psn, ext.sent.cumulative()) < 0) {
    enter_error(qp, ctx);
    return;
  }
  const std::optional<size_t> echoed = ext.evs.find(p.sacketh->ev_echo);
  // MR-PF-19, MR-TR-06: an ECN mark or a trim NAK is congestion, not failure; the
  // ext-ecn-marks-ev-bad and ext-trim-nak-marks-ev-bad mutants blame the echoed entry as a
  // timeout would.
  const bool trim_nak = syndrome == wire::kNakTrimmed || syndrome == wire::kNakTrimmedLastHop;
  if (echoed && ((p.sacketh->ece && !decide.ecn_leaves_ev_good) ||
                 (trim_nak && !decide.trim_nak_leaves_ev_good)))
    ext.evs.on_rto(*echoed, ctx.now_ns);
  // Section 20.4: what the echoed entry's path did to the packet (adaptive selection), for
  // ACKs and NAKs alike; the ext-adaptive-ignores-marks mutant takes no notice of a marked
  // path (MR-MU-13).
  ext::EvFeedback feedback = path_feedback(syndrome, *p.sacketh);
  if (feedback == ext::EvFeedback::kMarked && !decide.holds_marked_evs)
    feedback = ext::EvFeedback::kNone;
  if (echoed) ext.selector.on_feedback(ext.evs, ctx.now_ns, *echoed, feedback);
  if (wire::is_rnr_nak(syndrome)) {
    // MR-OO-12: that PSN only, after the RNR delay, within rnr_retry (7: without limit).
    if (!ext.sent.outstanding(p.bth.psn)) return;
    ++ctx.counters.rcvd_rnr_err;
    if (qp.attr.rnr_retry != 7 && qp.rnr_retries_left-- == 0) {
      ++ctx.counters.retry_rnr_exceeded_err;
      fail_at(qp, p.bth.psn, WcStatus::kRnrRetryExceededError, ctx);
      return;
    }
    const uint64_t due = ctx.now_ns + rnr_delay_ns(wire::syndrome_value(syndrome));
    ext.sent.hold(p.bth.psn, due);  // no timeout before it may go again
    ext.rnr_waits.emplace_back(due, p.bth.psn);
    // The ext-rnr-go-back-n mutant sends the PSNs after it again too.
    if (!ctx.decide.extension.rnr_retransmits_one) go_back_n(qp, wire::psn_add(p.bth.psn, 1));
    return;
  }
  if (wire::is_nak(syndrome)) {
    // Section 22: a NAK acknowledges nothing; its BTH PSN is the packet it concerns.
    switch (syndrome) {
      case wire::kNakInvalidRequest:  // Part I's fatal codes without NONFATAL: the operation
        fail_at(qp, p.bth.psn, WcStatus::kRemoteInvalidRequestError, ctx);  // and the QP fail
        break;
      case wire::kNakRemoteAccessError:
        fail_at(qp, p.bth.psn, WcStatus::kRemoteAccessError, ctx);
        break;
      case wire::kNakRemoteOperationalError:
        fail_at(qp, p.bth.psn, WcStatus::kRemoteOperationError, ctx);
        break;
      case wire::kNakPsnOutOfWindow:  // that PSN again, once the window lets it (MR-NK-03)
        acknowledge_before_nak(qp, p.bth.psn, ctx);  // only the ext-nak-acknowledges mutant
        if (ext.sent.outstanding(p.bth.psn))
          ext.retransmit.push_back({p.bth.psn, ext::RetransmitCause::kNak});
        break;
      case wire::kNakOpInvalidRequest:  // section 22.1; ignored without NONFATAL (MR-NF-15)
      case wire::kNakOpRemoteAccess:
      case wire::kNakOpRemoteOperational:
        if (ext.agreement.has(wire::kMxcapNonFatal) ||
            !ctx.decide.extension.operation_naks_need_nonfatal)  // the mutant acts on it
          fail_operation(qp, p.bth.psn, {.status = operation_status(syndrome)}, ctx);
        break;
      case wire::kNakResource:
        if (ext.agreement.has(wire::kMxcapNonFatal)) on_resource_nak(qp, p.bth.psn, ctx);
        break;
      case wire::kNakTrimmed:         // that PSN alone, at once (MR-TR-05); no EV state changes
      case wire::kNakTrimmedLastHop:  // because of it (MR-TR-06); a loss to the window
        acknowledge_before_nak(qp, p.bth.psn, ctx);  // only the ext-nak-acknowledges mutant
        if (auto r = ext.sent.on_trim_nak(p.bth.psn)) {
          ext.retransmit.push_back(*r);
          on_trim(qp, ctx);
          // The ext-trim-nak-go-back-n mutant sends every later PSN after it.
          if (!ctx.decide.extension.trim_nak_retransmits_one)
            go_back_n(qp, wire::psn_add(p.bth.psn, 1));
        }
        break;
      case wire::kNakPsnSequenceError:  // ignored (MR-NK-05), but by the ext-obeys-nak-0x60
        if (!ctx.decide.extension.ignores_nak_0x60) go_back_n(qp, p.bth.psn);  // mutant
        break;
      default:  // the codes of later slices are ignored (MR-NK-05)
        break;
    }
    return;
  }
  if (p.bth.opcode == wire::kOpRcAtomicAcknowledge) take_atomic_result(qp, p, ctx);
  const wire::Sacketh& s = *p.sacketh;
  // RTT: the echoed TX timestamp, less the time the receiver held the packet (64 ns units).
  if (s.tse) {
    const uint64_t rtt = static_cast<uint32_t>(static_cast<uint32_t>(ctx.now_ns) - s.ts_echo);
    const uint64_t held = uint64_t{s.service_time} * 64;
    if (rtt > held) ext.rto.sample(rtt - held);
  }
  // The ext-sack-offset-unchecked mutant reads an unaligned offset as the multiple of 8 below
  // it; the ext-ara-loss-ignored one reads ARA as 0.
  const uint16_t sent_offset = s.sack_offset;
  const auto offset = static_cast<uint16_t>(
      sent_offset % 8 != 0 && !decide.checks_sack_offset ? sent_offset & ~7U : sent_offset);
  const ext::ExtAckReport report{.cumulative = p.bth.psn,
                                 .sack_ref = s.sack_ref,
                                 .sack_offset = offset,
                                 .bitmap = s.bitmap,
                                 .ara = s.ara != 0 && decide.repairs_ara_losses,
                                 .mpr = s.mpr};
  // MR-PF-14: a duplicate's ACK echoing a watched retransmission: its timeout was spurious.
  if (s.dup && s.tse) {
    auto watch = std::ranges::find_if(ext.rto_watches, [&](const auto& w) {
      return w.retransmitted && w.ev == s.ev_echo && w.tx_timestamp == s.ts_echo;
    });
    if (watch != ext.rto_watches.end()) {
      if (decide.spurious_rto_restores_ev) ext.evs.on_spurious_rto(watch->entry);  // not the mutant
      ext.rto_watches.erase(watch);
    }
  }
  // MR-PF-12: a PROBE's answer brings its entry back (unless damped and still held), but for
  // the ext-probe-answer-ignored mutant.
  if (s.prb && decide.probe_answer_restores_ev)
    if (auto probed = ext.evs.find(s.ev_echo)) ext.evs.on_probe_answer(*probed, ctx.now_ns);
  const ext::AckOutcome outcome = ext.sent.on_ack(report, ctx.now_ns, ext.rto);
  ext.psns_in_flight -= std::min<uint64_t>(ext.psns_in_flight, outcome.newly_acknowledged);
  if (ext.cc) {
    const uint64_t mtu = qp.attr.path_mtu;
    std::optional<uint64_t> rtt;
    if (s.tse) rtt = ext::rtt_sample(ctx.now_ns, s.ts_echo, s.service_time);
    ext.cc->on_ack({.acked_bytes = uint64_t{outcome.newly_acknowledged} * mtu,
                    .ecn = s.ece || s.trm || s.ce_count > 0,
                    .rtt_ns = rtt},
                   ctx.now_ns, ext.psns_in_flight * mtu);
  }
  for (const ext::Retransmission& r : outcome.retransmit) ext.retransmit.push_back(r);
  // The ext-read-implicit-nak mutant reissues every READ the cumulative PSN passed unanswered.
  if (!decide.read_outlives_cumulative_ack) {
    for (const auto& [first, read] : ext.reads)
      if (!read.complete() && wire::psn_diff(report.cumulative, first) >= 0)
        ext.retransmit.push_back({first, ext::RetransmitCause::kNak});
  }
  // The ext-retransmits-sacked mutant repairs an ARA = 1 ACK by go-back-N.
  if (report.ara && !decide.retransmits_only_outstanding)
    go_back_n(qp, wire::psn_add(p.bth.psn, 1));
  // MR-PF-18: an EV silent for an RTO since a SACK-detected loss on it is blamed as its RTO
  // would have been (MR-PF-01), had SACK repair not kept that RTO from expiring; the
  // ext-rto-keeps-ev-good and ext-silent-ev-kept-good mutants blame no EV for that.
  for (const uint16_t ev : outcome.silent_evs) {
    if (auto i = ext.evs.find(ev); i && decide.rto_assumes_ev_bad && decide.blames_silent_evs)
      ext.evs.on_rto(*i, ctx.now_ns);
  }
  // MR-NF-09 counts NAKs 0x6B in a row: an ACK that covers the PSN ends the row.
  std::erase_if(ext.resource_naks, [&](const auto& n) { return !ext.sent.outstanding(n.first); });
  retire_acknowledged(qp, ctx);
}

void run_ext_timers(QueuePair& qp, QpContext& ctx) {
  if (!qp.ext || qp.attr.state != QpState::kRts) return;
  ext::ExtQpState& ext = *qp.ext;
  // RNR-delayed PSNs whose delay is over.
  std::erase_if(ext.rnr_waits, [&](const std::pair<uint64_t, uint32_t>& wait) {
    if (wait.first > ctx.now_ns) return false;
    ext.retransmit.push_back({wait.second, ext::RetransmitCause::kNak});
    return true;
  });
  run_path_probes(qp, ctx);
  if (blocked_on_credit(qp)) {
    take_back_stalled_credit(qp, ctx);
  } else {
    ext.credit_stall_ns.reset();
  }
  if (waiting_for_credit(qp)) return;
  // READs whose responses stopped coming: again from the first missing one.
  for (auto& [first, read] : ext.reads) {
    const uint64_t rto = ext.rto.backed_off(read.timeouts());
    if (auto due = read.deadline_ns(rto); due && ctx.now_ns >= *due) {
      if (auto m = read.first_missing(ctx.now_ns, rto)) {
        read.on_timeout();
        // MR-SA-11's budget, counted per READ or ATOMIC: timeouts since a response last
        // brought something new (a responder that never answers must not be waited on for
        // ever).
        const uint32_t limit = ext.sent.parameters().retry_limit;
        if (limit != ext::ExtSenderParameters::kUnlimitedRetries && read.timeouts() > limit) {
          ++ctx.counters.retry_exceeded_err;
          fail_at(qp, first, WcStatus::kRetryExceededError, ctx);
          return;
        }
        ext.retransmit.push_back({*m, ext::RetransmitCause::kTimeout});
      }
    }
  }
  const ext::TimerOutcome out = ext.sent.on_timer(ctx.now_ns, ext.rto);
  if (out.retry_exceeded) {
    ++ctx.counters.retry_exceeded_err;
    fail_at(qp, *out.retry_exceeded, WcStatus::kRetryExceededError, ctx);
    return;
  }
  for (const ext::Retransmission& r : out.retransmit) {
    // A probe of a PSN already queued to go again (its RNR or 0x6B wait just ended) would
    // send it twice at once.
    if (r.cause == ext::RetransmitCause::kProbe &&
        std::ranges::any_of(ext.retransmit, [&](const auto& q) { return q.psn == r.psn; }))
      continue;
    // Section 25.1: a timeout blames the entry the PSN last went out on (not the
    // ext-rto-keeps-ev-good mutant); if the PSN went out once, MR-PF-14 watches for the echo
    // that would show the timeout spurious.
    if (r.cause == ext::RetransmitCause::kTimeout) {
      if (auto ev = ext.sent.last_ev(r.psn); ev && ctx.decide.extension.rto_assumes_ev_bad) {
        if (auto i = ext.evs.find(*ev);
            i && ext.evs.on_rto(*i, ctx.now_ns) && ext.sent.transmissions(r.psn) == 1) {
          if (ext.rto_watches.size() == ext::ExtQpState::kRtoWatches)
            ext.rto_watches.erase(ext.rto_watches.begin());
          ext.rto_watches.push_back({.psn = r.psn, .entry = *i});
        }
      }
      // Section 26.1: an RTO takes the packet's size off the window.
      if (ext.cc)
        ext.cc->on_loss(qp.attr.path_mtu, std::nullopt, ctx.now_ns,
                        ext.psns_in_flight * qp.attr.path_mtu);
    }
    ext.retransmit.push_back(r);
  }
}

std::optional<uint64_t> ext_requester_deadline(const QueuePair& qp) {
  if (!qp.ext || qp.attr.state != QpState::kRts) return std::nullopt;
  const ext::ExtQpState& ext = *qp.ext;
  std::optional<uint64_t> next;
  for (const auto& [due, psn] : ext.rnr_waits) next = next ? std::min(*next, due) : due;
  // Work held for want of a usable entry looks again each T_PROBE_INTERVAL: entries come
  // back by time (hold-down, port-up hold), which no packet announces.
  if (ext.ev_retry_ns) next = next ? std::min(*next, *ext.ev_retry_ns) : *ext.ev_retry_ns;
  if (auto due = ext.evs.next_due_ns()) next = next ? std::min(*next, *due) : *due;
  if (ext.cc)  // work the pacer held back: when its bucket will hold the packet
    if (auto paced = ext.cc->pacer_wait_ns()) next = next ? std::min(*next, *paced) : *paced;
  if (blocked_on_credit(qp)) {  // a grant moves it on, or the stall bound
    const uint64_t stall = credit_stall_due_ns(ext);
    next = next ? std::min(*next, stall) : stall;
  }
  if (waiting_for_credit(qp)) return next;  // no PSN times out meanwhile (MR-CR-06)
  if (auto due = ext.sent.next_timer_ns(ext.rto)) next = next ? std::min(*next, *due) : *due;
  for (const auto& [first, read] : ext.reads) {
    if (auto due = read.deadline_ns(ext.rto.backed_off(read.timeouts())))
      next = next ? std::min(*next, *due) : *due;
  }
  return next;
}

}  // namespace mr::transport
