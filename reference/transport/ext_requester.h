// File: ext_requester.h
//
// The requester and completer of an Ext QP (spec sections 21.2 and 24), for every RC work
// request: every packet carries an MXH (MSN, RQSN, offset, TX timestamp) and a WRITE's every
// packet the whole message's RETH, so the responder places it wherever it lands; each PSN
// sent is recorded (SentPsnRecords); SACKs, early-loss detection, the RTO with back-off and
// tail-loss probes choose which PSNs go again, and only those go (selective retransmission,
// never go-back-N); a READ or ATOMIC is one request, sent again when its responses or its
// ATOMIC_ACKNOWLEDGE do not come; a WQE completes, in posting order, once the cumulative ACK
// passes its last PSN (and its responses are in). With CC, section 26's window; with CREDIT,
// the receiver's grants. A state enum, one function per state and one driver loop, as the
// base requester.
//
//   run_ext_requester(qp, ctx);            // what the window allows now
//   complete_ext_response(qp, ack, ctx);   // an ACK or NAK with its SACKETH
//   run_ext_timers(qp, ctx);               // timeouts and probes due at ctx.now_ns
#pragma once

#include <cstdint>
#include <optional>

#include "reference/transport/qp_context.h"

namespace mr::transport {

void run_ext_requester(QueuePair& qp, QpContext& ctx);
void complete_ext_response(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);
// A trimmed READ response for this QP (TRIM agreed), its BTH and MXH intact: if its PSN is an
// unreceived response PSN of an outstanding READ, the READ is reissued from its first missing
// response, and no NAK is sent (MR-TR-17); otherwise nothing.
void complete_trimmed_read_response(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);
// A CREDIT packet (section 26.8): the sender takes its limit if newer (MR-CR-05) and does
// nothing else (MR-CR-16); for a QP without CREDIT it is discarded.
void receive_ext_credit(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);
void run_ext_timers(QueuePair& qp, QpContext& ctx);
// When run_ext_timers next has work; none while nothing is outstanding.
std::optional<uint64_t> ext_requester_deadline(const QueuePair& qp);

}  // namespace mr::transport
