// File: receive_scatter.h
//
// Placing received payload into a receive WQE's scatter list: the bytes of an RC/UC SEND at
// its message offset (responder.cpp), and a UD datagram after its GRH area (ud_responder.cpp).
//
//   if (receive_capacity(rwqe) < len) ...;                       // MR-MP-08 / MR-UD-05
//   if (!scatter_to_receive_wqe(qp, rwqe, offset, payload, ctx)) ...;  // a buffer went away
#pragma once

#include <cstdint>
#include <span>

#include "reference/transport/qp_context.h"
#include "reference/transport/queue_pair.h"
#include "reference/transport/work_request.h"

namespace mr::transport {

// The bytes the WQE's scatter list can take.
uint64_t receive_capacity(const RecvWr& rwqe);

// Writes `data` at `offset` of a scatter list (a receive WQE's, or a READ's local buffers);
// false when a buffer does not resolve (its region was deregistered after the post) or the
// list ends before the data does.
bool scatter(const QueuePair& qp, std::span<const Sge> sg_list, uint64_t offset,
             std::span<const uint8_t> data, QpContext& ctx);
inline bool scatter_to_receive_wqe(const QueuePair& qp, const RecvWr& rwqe, uint64_t offset,
                                   std::span<const uint8_t> data, QpContext& ctx) {
  return scatter(qp, rwqe.sg_list, offset, data, ctx);
}

}  // namespace mr::transport
