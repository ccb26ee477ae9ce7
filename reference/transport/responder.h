// File: responder.h
//
// The responder: request packets arriving at a QP (IBTA 9.7.5.1, rxe_resp.c). One state
// per check, in rxe's order, so that the error that wins when several apply is the one a
// Linux peer would report: PSN, opcode sequence, operation validity, resources, length,
// R_Key, execute, acknowledge; duplicates and the error classes branch off.
#pragma once

#include "reference/transport/qp_context.h"
#include "reference/wire/roce_packet.h"

namespace mr::transport {

void respond(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);

}  // namespace mr::transport
