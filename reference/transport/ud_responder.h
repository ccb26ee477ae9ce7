// File: ud_responder.h
//
// The receive side of an unreliable datagram QP (IBTA 9.8, 10.2.5, 11.4.1.1; rxe_resp.c for
// IB_QPT_UD): the Q_Key check, one packet into one receive WQE behind the 40-byte GRH area,
// and a completion naming the sender's QPN. Everything that fails is dropped silently:
// a datagram has no ACK, NAK or Error-state consequence.
#pragma once

#include "reference/transport/qp_context.h"
#include "reference/wire/roce_packet.h"

namespace mr::transport {

// Bytes in front of a UD payload in the receive buffer (IBTA 11.4.1.1: the GRH, or for
// RoCEv2 over IPv4 twenty zero bytes and then the IPv4 header, as Linux places it).
inline constexpr uint32_t kGrhAreaBytes = 40;

// A UD SEND ONLY (with immediate) for `qp`, which the device found in a receiving state
// with a matching P_Key (MR-UD-02..04).
void receive_datagram(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx);

}  // namespace mr::transport
