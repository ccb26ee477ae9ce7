// File: ud_requester.h
//
// The requester of an unreliable datagram QP (IBTA 9.8, rxe_req.c for IB_QPT_UD): each
// send work request becomes one UD_SEND_ONLY or UD_SEND_ONLY_WITH_IMMEDIATE packet
// with a DETH, addressed by the work request's own address handle, never acknowledged and
// never retransmitted, completed as soon as it is on the wire.
#pragma once

#include "reference/transport/qp_context.h"

namespace mr::transport {

// Sends every posted UD work request now and completes it (MR-UD-01, MR-UD-05).
void run_ud_requester(QueuePair& qp, QpContext& ctx);

}  // namespace mr::transport
