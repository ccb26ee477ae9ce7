// File: qp_context.h
//
// What the engines (requester, responder, completer) may touch while they work on one QP:
// the device's memory, decisions (what the mutants broke), counters, packet factory and
// outbox, the QP's completion queues, and the current time. Passing it explicitly keeps the engines
// free of globals.
#pragma once

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "reference/memory/memory_table.h"
#include "reference/transport/completion_queue.h"
#include "reference/transport/device_counters.h"
#include "reference/transport/packet_factory.h"
#include "reference/transport/queue_pair.h"
#include "reference/transport/ring_deque.h"
#include "reference/transport/step_trace.h"
#include "reference/transport/transport_decisions.h"

namespace mr::transport {

// The frames a device sent since its last take_outbox(), each with the plane (port) it
// leaves on: one push keeps the two in step. `spare` holds buffers of frames the device's
// driver gave back (Device::recycle); the next frames are built in them.
struct Outbox {
  static constexpr size_t kMaxSpare = 4096;  // enough for a burst; beyond it they are freed

  std::vector<std::vector<uint8_t>> frames;
  std::vector<uint8_t> planes;  // index for index with frames
  std::vector<std::vector<uint8_t>> spare;

  void push(std::vector<uint8_t> frame, uint8_t plane) {
    frames.push_back(std::move(frame));
    planes.push_back(plane);
  }
  // A buffer for the next frame: a spare one (its capacity kept) when there is one.
  std::vector<uint8_t> take_buffer() {
    if (spare.empty()) return {};
    std::vector<uint8_t> b = std::move(spare.back());
    spare.pop_back();
    return b;
  }
};

struct QpContext {
  memory::MemoryTable& memory;
  const TransportDecisions& decide;
  PacketFactory& factory;
  DeviceCounters& counters;
  Outbox& outbox;
  CompletionQueue& send_cq;
  CompletionQueue& recv_cq;
  RingDeque<RecvWr>* srq = nullptr;  // the shared receive queue, when the QP has one
  uint64_t now_ns = 0;
  StepTrace* trace = nullptr;  // records each engine step when the device has one
  uint8_t plane = 0;           // a base QP's port: its packets never change plane
  // The device's EV mode (its MXCAP block's, section 20.2): FLOW encodes the EV in the IPv6
  // flow label; IPv4 packets keep UDP mode whatever it says.
  bool ev_mode_flow = false;
  // An Ext QP's EV set: the ext-sport-not-ev mutant keeps its first entry's EV as UDP port.
  const ext::EvTable* evs = nullptr;
  // An Ext QP with SECURE (section 19.4): seals every packet it sends.
  ext::SecureTransmitter* secure = nullptr;

  void step(std::string_view machine, std::string_view state, uint32_t psn) const {
    if (trace != nullptr) trace->record(machine, state, psn);
  }

  // `pieces`: the payload as parts of memory regions, copied once, straight into the frame.
  void send(const wire::RocePacket& p, wire::PayloadPieces pieces = {}) {
    send_on(p, plane, pieces);
  }
  void send_on(const wire::RocePacket& p, uint8_t on_plane, wire::PayloadPieces pieces = {}) {
    std::vector<uint8_t> frame = outbox.take_buffer();
    if (!factory.finish_into(p, frame, pieces, secure)) {
      ++counters.se_rekey_blocked;  // MR-SE-08: no packet past the epoch's limit
      return;
    }
    outbox.push(std::move(frame), on_plane);
    ++counters.sent_pkts;
  }
  // An Ext QP's packet on EV set entry `e` (section 20.2), leaving on the entry's plane
  // (MR-MU-10). EV mode UDP: UDP source port = EV, the flow label the QP's address vector
  // gave (MR-MU-02). FLOW, IPv6: flow label (plane << 16) | EV and the port folded from it
  // (MR-MU-03).
  void send_on_entry(wire::RocePacket& p, const ext::EvEntry& e, wire::PayloadPieces pieces = {}) {
    auto* v6 = std::get_if<wire::Ipv6>(&p.ip);
    if (ev_mode_flow && v6 != nullptr) {
      const ext::EvEncoding flow = ext::encode_flow(e);
      v6->fl = flow.flow_label;
      p.udp.sport = flow.udp_source_port;
    } else if (evs == nullptr || decide.extension.sport_is_ev) {
      p.udp.sport = ext::encode_udp(e, 0).udp_source_port;
    } else {  // the ext-sport-not-ev mutant: the MXH says `e`, the port the first entry
      p.udp.sport = ext::encode_udp(evs->entry(0), 0).udp_source_port;
    }
    send_on(p, e.plane, pieces);
  }
  RingDeque<RecvWr>& receive_queue(QueuePair& qp) { return srq ? *srq : qp.rq; }
  void complete_send(const QueuePair& qp, const Completion& c) {
    if (!send_cq.push(c, event_fault())) ++counters.cq_overflow;
    (void)qp;
  }
  void complete_recv(const Completion& c) {
    if (!recv_cq.push(c, event_fault())) ++counters.cq_overflow;
  }
  EventFault event_fault() const {
    if (!decide.completion.raises_completion_events) return EventFault::kNeverRaise;
    if (!decide.completion.honours_solicited_event) return EventFault::kIgnoreSolicited;
    return EventFault::kNone;
  }
};

// Moves the QP to the Error state: every send WQE not yet completed and every posted
// receive WQE completes with a flush error (MR-QS-04, MR-QS-09).
void enter_error(QueuePair& qp, QpContext& ctx);

}  // namespace mr::transport
