#include "reference/transport/ud_responder.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <variant>

#include "reference/transport/receive_scatter.h"
#include "reference/wire/byte_writer.h"

namespace mr::transport {
namespace {

// The GRH area as rxe fills it (rxe_resp.c send_data_in with union rdma_network_hdr):
// IPv4: 20 zero bytes, then the received IPv4 header without options; IPv6: its header.
std::array<uint8_t, kGrhAreaBytes> grh_area(const wire::RocePacket& p) {
  std::array<uint8_t, kGrhAreaBytes> out{};
  std::vector<uint8_t> header;
  wire::ByteWriter w(header);
  if (const auto* v4 = std::get_if<wire::Ipv4>(&p.ip)) {
    v4->write(w);
    const size_t n = std::min<size_t>(header.size(), 20);
    std::copy_n(header.begin(), n, out.begin() + 20);
  } else {
    std::get<wire::Ipv6>(p.ip).write(w);
    std::copy_n(header.begin(), std::min<size_t>(header.size(), out.size()), out.begin());
  }
  return out;
}

}  // namespace

void receive_datagram(QueuePair& qp, const wire::RocePacket& p, QpContext& ctx) {
  if (!p.deth) return;  // the decoder gives every UD opcode its DETH; be safe anyway
  // MR-UD-02 (IBTA C10-15): a Q_Key that is not the QP's drops the packet and counts.
  const DatagramDecisions& decide = ctx.decide.datagram;
  if (p.deth->qkey != qp.attr.qkey && decide.checks_qkey) {
    ++ctx.counters.qkey_viol_cntr;
    return;
  }
  auto& rq = ctx.receive_queue(qp);
  if (rq.empty()) {  // MR-UD-04: no RNR NAK for a datagram, just a drop
    ++ctx.counters.dropped_no_rwqe;
    return;
  }
  const bool grh = decide.fills_grh_area;
  const uint64_t room = receive_capacity(rq.front());
  const uint64_t header = grh ? kGrhAreaBytes : 0;
  auto payload = p.payload;
  if (header + payload.size() > room) {
    if (decide.drops_message_longer_than_wqe || room < header) {
      ++ctx.counters.dropped_no_rwqe;  // MR-UD-04: the WQE stays for the next datagram
      return;
    }
    payload = payload.first(room - header);
  }
  const RecvWr rwqe = std::move(rq.front());
  rq.pop_front();
  bool placed = true;
  if (grh) {
    const auto area = grh_area(p);
    placed = scatter_to_receive_wqe(qp, rwqe, 0, area, ctx);
  }
  placed = placed && scatter_to_receive_wqe(qp, rwqe, header, payload, ctx);
  Completion c;
  c.wr_id = rwqe.wr_id;
  c.status = placed ? WcStatus::kSuccess : WcStatus::kLocalProtectionError;
  c.opcode = WcOpcode::kRecv;
  c.byte_len = static_cast<uint32_t>(header + payload.size());
  c.qp_num = qp.qpn;
  c.solicited = p.bth.solicited != 0;
  c.src_qp = decide.reports_source_qp ? p.deth->sqpn.value() : qp.qpn;
  c.grh = grh;
  if (p.imm_dt) {
    const uint32_t imm = p.imm_dt->imm.value();
    c.imm_data = ctx.decide.completion.immediate_in_host_order ? imm : __builtin_bswap32(imm);
  }
  ctx.complete_recv(c);
  ++ctx.counters.rdma_recvs;
}

}  // namespace mr::transport
