// File: queue_pair.h
//
// One queue pair (RC, UC or UD): its attributes, its send queue as the requester and
// completer see it, and its receive side as the responder sees it. The engines
// (requester.cpp, responder.cpp, completer.cpp) hold the behaviour; this is the state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "reference/transport/address_vector.h"
#include "reference/transport/dcqcn_reaction_point.h"
#include "reference/transport/ext_qp_state.h"
#include "reference/transport/qp_state.h"
#include "reference/transport/ring_deque.h"
#include "reference/transport/work_request.h"
#include "reference/wire/mxcap.h"
#include "reference/wire/psn.h"

namespace mr::transport {

enum QpAccess : uint32_t {
  kQpRemoteWrite = 2,
  kQpRemoteRead = 4,
  kQpRemoteAtomic = 8,
};

struct QpAttributes {
  QpState state = QpState::kReset;
  uint32_t access_flags = 0;
  uint16_t pkey = 0xffff;
  uint32_t path_mtu = 1024;
  AddressVector av;
  uint32_t dest_qpn = 0;
  uint32_t rq_psn = 0;
  uint32_t sq_psn = 0;
  uint8_t timeout = 14;
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;
  uint8_t min_rnr_timer = 12;
  uint8_t max_rd_atomic = 16;
  uint8_t max_dest_rd_atomic = 16;
  uint32_t qkey = 0;                      // UD only
  std::optional<wire::Mxcap> peer_mxcap;  // kAttrPeerMxcap: what the peer offered
  // kAttrOfferedMxcap: what this QP offers, within the device's block; none: the device's.
  std::optional<wire::Mxcap> offered_mxcap;
  // kAttrEvSet: the EV set to spray over (section 20.1); none: the device generates one. A
  // QP left in base mode keeps it unused. query_qp: an Ext QP's set in use, given or not.
  std::optional<std::vector<ext::EvEntry>> ev_set;
  std::vector<ext::EvState> ev_states;  // query only: an Ext QP's entry states, as ev_set
  // kAttrSecureSa: secure mode's keys (section 19.4); never reported by query_qp.
  std::optional<ext::SecurityAssociations> secure_sa;
  bool ext_mode = false;  // query only: INIT to RTR agreed extension mode (section 18)
  // query only: an Ext QP's congestion window in bytes when CC is agreed (MR-SC-12).
  std::optional<uint64_t> cwnd;
};

struct QpInitAttributes {
  QpType type = QpType::kRc;
  uint32_t pd = 0;
  uint32_t send_cq = 0;
  uint32_t recv_cq = 0;
  std::optional<uint32_t> srq;
  uint32_t max_send_wr = 4096;
  uint32_t max_recv_wr = 4096;
  // A QPN chosen by a management plane instead of the device's seeded one: the harness's
  // tester QP takes the QPN the DUT's QP was already pointed at. Verbs has no such attribute.
  std::optional<uint32_t> qpn;
};

// A posted send work request with its transmission progress.
struct SendWqe {
  SendWr wr;
  uint32_t length = 0;     // total bytes of the message
  uint32_t first_psn = 0;  // assigned at the first transmission
  uint32_t npsn = 1;       // PSNs the request consumes
  bool started = false;
  uint32_t next_packet = 0;   // next packet index to (re)transmit
  uint32_t read_packets = 0;  // READ responses received in order
  bool completed = false;
  uint32_t msn = 0;   // Ext: the MXH MSN of every packet of the message (MR-EX-11)
  uint32_t rqsn = 0;  // Ext: its MXH RQSN, when it consumes a receive WQE (MR-EX-12)

  uint32_t last_psn() const { return wire::psn_add(first_psn, npsn - 1); }
  bool is_read_or_atomic() const {
    return wr.opcode == SendOpcode::kRead || wr.opcode == SendOpcode::kCompareSwap ||
           wr.opcode == SendOpcode::kFetchAdd;
  }
};

// A READ or ATOMIC the responder executed, kept for duplicate handling (IBTA 9.7.5.1.3).
struct ResponderResource {
  enum class Kind : uint8_t { kRead, kAtomic } kind = Kind::kRead;
  uint32_t first_psn = 0;
  uint32_t last_psn = 0;
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint32_t length = 0;
  uint64_t original = 0;  // ATOMIC: the value returned, replayed on duplicates
};

// The message the responder is in the middle of receiving.
struct OpenMessage {
  enum class Kind : uint8_t { kNone, kSend, kWrite } kind = Kind::kNone;
  std::optional<RecvWr> rwqe;  // SEND: the receive WQE it consumes
  uint32_t received = 0;       // bytes placed so far
  uint64_t va = 0;             // WRITE: next address
  uint32_t rkey = 0;
  uint32_t remaining = 0;  // WRITE: DMA length left
};

struct QueuePair {
  uint32_t qpn = 0;
  QpInitAttributes init;
  QpAttributes attr;

  // requester and completer
  RingDeque<SendWqe> sq;
  size_t send_index = 0;   // first WQE of sq not completely transmitted
  uint32_t next_psn = 0;   // PSN of the next new request packet
  uint32_t acked_psn = 0;  // newest request PSN acknowledged (sq_psn - 1 initially)
  uint32_t unacked_packets_since_ackreq = 0;
  uint8_t retries_left = 7;
  std::optional<uint32_t> nak_retry_psn;  // a sequence NAK retry from this PSN is under way
  uint8_t rnr_retries_left = 7;
  std::optional<uint64_t> retransmit_deadline_ns;
  std::optional<uint64_t> rnr_resume_ns;

  // responder
  RingDeque<RecvWr> rq;
  uint32_t epsn = 0;
  uint32_t msn = 0;
  bool sent_psn_nak = false;
  bool rnr_nak_outstanding = false;
  bool uc_drop_message = false;  // UC: a packet was lost, drop until a FIRST or ONLY
  OpenMessage open;
  RingDeque<ResponderResource> resources;

  // notification point: when this QP last sent a CNP
  std::optional<uint64_t> last_cnp_ns;

  // reaction point: the QP's DCQCN rate and pacer, from its first CNP on (unpaced before)
  std::optional<DcqcnReactionPoint> rp;

  // Ext mode (spec Part II), when INIT to RTR agreed it: none on a base QP.
  std::unique_ptr<ext::ExtQpState> ext;
};

}  // namespace mr::transport
