// File: ext_responder.h
//
// The responder of an Ext QP (spec sections 21.1 and 24), for every RC request: a WRITE
// packet is checked against the whole message's R_Key and range and placed at RETH VA + MXH
// offset, a SEND packet at MXH offset in the receive WQE bound to its RQSN (none: an RNR NAK
// for that packet only), whatever order they arrive in; a READ or ATOMIC runs once every
// earlier PSN is in (an ATOMIC's result kept for its duplicates); the PSN window records
// them; receive completions, invalidations and the AETH MSN follow the cumulative PSN in
// message order; the ACK policy answers with a SACKETH (AR at once, else every
// N_EXT_ACK_EVERY packets or after T_EXT_ACK_DELAY). A PSN beyond the window draws NAK 0x67;
// Part I's errors NAK 0x61/0x62 and the Error state (MR-NK-07). A state enum, one function
// per state, one driver loop.
#pragma once

#include <cstdint>
#include <optional>

#include "reference/transport/qp_context.h"

namespace mr::transport {

// An Ext request packet (TVer 1) for this QP.
void respond_ext(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);
// A trimmed request for this QP (TRIM agreed), its BTH and MXH intact (`p` holds the headers
// the cut left, no payload): NAK 0x65, or 0x66 when `held` carries the last-hop mark, with
// TRM = 1 and its EV and plane echoed if its PSN is new and inside the window (MR-TR-10,
// MR-TR-11); otherwise nothing (MR-TR-04). Never placed or recorded (MR-TR-03).
void respond_ext_trimmed(QueuePair& qp, const wire::RocePacket& p, const ext::HeldPacket& held,
                         const ext::TrimParameters& trim, QpContext& ctx);
// A RESYNC for this QP (section 22.3): with RESYNC agreed and the range inside the window,
// every PSN of it counts as received and its message as failed (MR-NF-10, MR-NF-11), answered
// by an ACK with ARA = 1; NAK 0x67 for a range beyond the window; otherwise (count 0, RESYNC
// not agreed) silently discarded (MR-NF-12).
void respond_ext_resync(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);
// A PROBE for this QP (section 25.2): with PATHPROBE agreed, in RTR or RTS, answered by an
// Ext ACK with PRB = 1 echoing its EV, plane and timestamp, at once; nothing else changes
// (MR-PF-08). Otherwise silently discarded.
void respond_ext_probe(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);
// A CREDIT packet with the QP's current credit limit (section 26.8), sent as an ACK is
// (section 20.3); nothing for a QP without CREDIT.
void send_ext_credit(QueuePair& qp, QpContext& ctx);
// Sends the ACK the policy owes at ctx.now_ns, if it owes one.
void flush_ext_ack(QueuePair& qp, QpContext& ctx);
// When the owed ACK must leave; none when nothing is unanswered.
std::optional<uint64_t> ext_responder_deadline(const QueuePair& qp);

}  // namespace mr::transport
