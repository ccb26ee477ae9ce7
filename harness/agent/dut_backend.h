// File: dut_backend.h
//
// What an agent backend implements: one virtual per op of the DUT control protocol, with
// typed arguments and results and errors as values. The request dispatcher turns JSON into
// these calls and their results into replies, so a backend never sees JSON.
//
// Backends: ReferenceBackend (reference_backend.h: the reference device over a Link) and
// VerbsBackend (verbs_backend.h: any RDMA NIC over libibverbs, Linux rxe included), which maps
//   create_pd -> ibv_alloc_pd, reg_mr -> ibv_reg_mr (access bits are ibv_access_flags),
//   create_cq -> ibv_create_cq, create_qp -> ibv_create_qp, modify_qp -> ibv_modify_qp
//   (mask bits as ibv_qp_attr_mask), post_* -> ibv_post_*, poll_cq -> ibv_poll_cq (with a
//   bounded wait), read_mem / write_mem -> copies in the registered buffer,
//   counters -> hw_counters, set_mutants -> ENOTSUP; Part II (ev_set, set_port,
//   set_ev_state) -> ENOTSUP.
//
// Handles: a PD, CQ and SRQ are named by the number create_* returned, a QP by its QPN,
// an MR by its L_Key. Every call may come from the agent's control thread while the
// backend's data path runs on its own: a backend serializes internally.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/agent/control_vocabulary.h"
#include "harness/agent/dut_types.h"

namespace mr::agent {

class DutBackend {
 public:
  virtual ~DutBackend() = default;

  virtual Result<Capabilities> capabilities() = 0;

  virtual Result<uint32_t> create_pd() = 0;
  virtual Result<MrResult> reg_mr(const RegMrArgs& args) = 0;
  virtual Result<void> dereg_mr(uint32_t lkey) = 0;
  virtual Result<uint32_t> create_cq(uint32_t depth) = 0;
  virtual Result<uint32_t> create_srq(uint32_t max_wr) = 0;
  virtual Result<uint32_t> create_qp(const CreateQpArgs& args) = 0;
  virtual Result<void> modify_qp(const ModifyQpArgs& args) = 0;
  // The attributes as they are now: sq_psn and rq_psn are the PSNs the QP sends and expects
  // next (ibv_query_qp), not the ones modify_qp set.
  virtual Result<transport::QpAttributes> query_qp(uint32_t qpn) = 0;

  virtual Result<void> post_send(uint32_t qpn, const transport::SendWr& wr) = 0;
  virtual Result<void> post_recv(uint32_t qpn, const transport::RecvWr& wr) = 0;
  virtual Result<void> post_srq_recv(uint32_t srq, const transport::RecvWr& wr) = 0;
  // Waits at most args.timeout_ms (<= kMaxPollTimeoutMs) for the first completion.
  virtual Result<std::vector<transport::Completion>> poll_cq(const PollCqArgs& args) = 0;
  virtual Result<void> req_notify_cq(uint32_t cq, bool solicited_only) = 0;
  // Waits at most timeout_ms (<= kMaxPollTimeoutMs) for a completion event of the CQ and
  // returns the events raised since the last call, acknowledged (ibv_get_cq_event +
  // ibv_ack_cq_events); 0 when none came in time.
  virtual Result<uint32_t> get_cq_events(uint32_t cq, uint32_t timeout_ms) = 0;

  virtual Result<std::vector<uint8_t>> read_mem(const MemArgs& args) = 0;
  virtual Result<void> write_mem(const MemArgs& args) = 0;
  virtual Result<std::vector<Counter>> counters() = 0;

  virtual Result<void> destroy(ObjectKind kind, uint32_t handle) = 0;
  // Forgets every object: afterwards the device is as freshly opened.
  virtual Result<void> reset() = 0;
  // Part II (spec sections 20 and 25). A device without it refuses both with ENOTSUP, as it
  // refuses modify_qp's ev_set: a harness must never believe a path was cut when it was not.
  // A plane's port goes down or up: its EVs are not used while it is down, nor for
  // T_PF_PORT_UP_HOLD after it is up (EINVAL for a plane the device does not have).
  virtual Result<void> set_port(uint8_t plane, bool up) = 0;
  // Management denies (allowed false) or allows one EV of an Ext QP's set; the entry's state
  // afterwards (allowing an ASSUMED_BAD entry leaves it ASSUMED_BAD).
  virtual Result<transport::ext::EvState> set_ev_state(uint32_t qpn, uint16_t ev, bool allowed) = 0;

  // Reference backends only: the named mutants, and no others, become active. Others
  // answer ENOTSUP.
  virtual Result<void> set_mutants(const std::vector<std::string>& names) {
    (void)names;
    return control_error(ErrorCode::kEnotsup, "this backend has no mutants", "enable");
  }
};

}  // namespace mr::agent
