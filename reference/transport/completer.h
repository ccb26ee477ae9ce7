// File: completer.h
//
// The completer: acknowledgements, NAKs and responses coming back to the requester
// (IBTA 9.7.5.2, rxe_comp.c). It completes work requests in posting order, places READ
// data and ATOMIC results, turns a PSN sequence NAK, an implicit NAK or a timeout into a
// go-back-N retry, waits out RNR NAKs, and ends the QP on fatal NAKs and retry exhaustion.
#pragma once

#include "reference/transport/qp_context.h"
#include "reference/wire/roce_packet.h"

namespace mr::transport {

void complete_response(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);

// The completion opcode of a send work request's completion (ibv_wc_opcode).
WcOpcode wc_opcode(SendOpcode op);

// An ATOMIC's original value (its AtomicAckETH) into the first 8 bytes of the work
// request's gather list, host order; nothing if it has none or its key no longer resolves.
void store_atomic_original(const QueuePair& qp, const SendWqe& w, uint64_t original,
                           const QpContext& ctx);

// The local ACK timer expired (the device calls this at or after the deadline).
void on_retransmit_timeout(QueuePair& qp, QpContext& ctx);

}  // namespace mr::transport
