#include "reference/transport/ud_requester.h"

#include <algorithm>

#include "reference/transport/packet_gather.h"
#include "reference/wire/opcode.h"

namespace mr::transport {
namespace {

void complete(QueuePair& qp, const SendWqe& w, WcStatus status, QpContext& ctx) {
  if (!w.wr.signaled && status == WcStatus::kSuccess) return;
  Completion c;
  c.wr_id = w.wr.wr_id;
  c.status = status;
  c.opcode = WcOpcode::kSend;
  c.byte_len = status == WcStatus::kSuccess ? w.length : 0;
  c.qp_num = qp.qpn;
  ctx.complete_send(qp, c);
}

// The Q_Key the DETH carries: a controlled Q_Key (bit 31 set) in the work request means
// "the QP's own Q_Key" (IBTA 10.2.5, MR-UD-05).
uint32_t deth_qkey(const QueuePair& qp, const UdDestination& d, QpContext& ctx) {
  const bool controlled = (d.remote_qkey & kControlledQkeyBit) != 0;
  if (controlled && ctx.decide.datagram.controlled_qkey_is_the_qps) return qp.attr.qkey;
  return d.remote_qkey;
}

void transmit(QueuePair& qp, const SendWqe& w, QpContext& ctx) {
  const UdDestination& d = *w.wr.ud;
  const bool imm = w.wr.opcode == SendOpcode::kSendWithImm;
  const uint32_t psn = qp.next_psn;
  wire::RocePacket p =
      ctx.factory.start(d.ah, qp.attr.pkey, d.remote_qpn,
                        imm ? wire::kOpUdSendOnlyWithImmediate : wire::kOpUdSendOnly, psn);
  p.deth = wire::Deth{deth_qkey(qp, d, ctx), 0, qp.qpn};
  if (imm) p.imm_dt = wire::ImmDt{w.wr.imm_data};
  p.bth.solicited = w.wr.solicited ? 1 : 0;
  // MR-UD-01: nobody acknowledges a datagram.
  p.bth.ackreq = ctx.decide.datagram.ackreq_clear ? 0 : 1;
  // The whole message (validated at post time; a region deregistered since then sends zeros
  // in its place, as the RC requester does).
  ctx.send(p, PacketGather::of(qp, w, 0, w.length, ctx.memory).pieces());
  qp.next_psn = wire::psn_add(psn, 1);
}

}  // namespace

void run_ud_requester(QueuePair& qp, QpContext& ctx) {
  if (qp.attr.state != QpState::kRts) return;  // MR-QS-08
  // Bounded by the send queue's depth: every WQE leaves the queue in this loop.
  const size_t n = std::min<size_t>(qp.sq.size(), qp.init.max_send_wr);
  for (size_t i = 0; i < n; ++i) {
    const SendWqe w = std::move(qp.sq.front());
    qp.sq.pop_front();
    // A datagram is never segmented: a message larger than the PMTU is a local length
    // error completion (rxe: IB_WC_LOC_LEN_ERR), not a packet.
    if (w.length > qp.attr.path_mtu && ctx.decide.datagram.refuses_larger_than_pmtu) {
      complete(qp, w, WcStatus::kLocalLengthError, ctx);
      continue;
    }
    transmit(qp, w, ctx);
    complete(qp, w, WcStatus::kSuccess, ctx);
  }
  qp.send_index = 0;
}

}  // namespace mr::transport
