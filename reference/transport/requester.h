// File: requester.h
//
// The requester: turns send work requests into request packets (IBTA 9.7.1-9.7.4).
// Segmentation by path MTU, PSN assignment with 24-bit wrap, AckReq policy, the limits on
// unacknowledged PSNs and outstanding READ/ATOMICs, and go-back-N retransmission from a
// PSN the completer chose. Written as rxe's engines are: a state enum, one function per
// state, one driver loop.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/transport/qp_context.h"

namespace mr::transport {

// At most this many request PSNs unacknowledged (rxe's RXE_MAX_UNACKED_PSNS).
inline constexpr uint32_t kMaxUnackedPsns = 128;
// AckReq on at least one of every this many packets (MR-AK-06; rxe's RXE_MAX_PKT_PER_ACK).
inline constexpr uint32_t kAckReqEveryPackets = 64;

// Sends every packet the window and limits allow now.
void run_requester(QueuePair& qp, QpContext& ctx);

// Go-back-N: the next transmission restarts at `psn`, which lies in an uncompleted WQE.
void rewind_requester(QueuePair& qp, uint32_t psn, const RequesterDecisions& decide);

// Opcode of packet `index` of `count` for a SEND or WRITE family (IBTA table 38); TVer 1
// keeps the RC values (spec table 19.1), so the Ext requester uses it too.
uint8_t data_opcode(SendOpcode op, uint32_t index, uint32_t count);

// Bytes per packet of `length` at path MTU `mtu`: max(1, ceil(length / mtu)) PSNs.
uint32_t packets_for(uint32_t length, uint32_t mtu);

}  // namespace mr::transport
