// File: device_counters.h
//
// What the reference device counts, named as Linux rxe's hw_counters where one exists, so
// that a report shows the same numbers for the reference and for rxe.
#pragma once

#include <cstdint>

#include "reference/transport/ext/ev_counters.h"

namespace mr::transport {

struct DeviceCounters {
  uint64_t sent_pkts = 0;
  uint64_t rcvd_pkts = 0;
  uint64_t duplicate_request = 0;
  uint64_t out_of_seq_request = 0;
  uint64_t rcvd_rnr_err = 0;
  uint64_t send_rnr_err = 0;
  uint64_t rcvd_seq_err = 0;
  uint64_t retry_exceeded_err = 0;
  uint64_t retry_rnr_exceeded_err = 0;
  uint64_t completer_retry_err = 0;
  uint64_t rdma_sends = 0;
  uint64_t rdma_recvs = 0;
  uint64_t ack_deferred = 0;
  uint64_t bad_pkey_cntr = 0;  // saturates at 0xffff (MR-QS-06)
  uint64_t icrc_errors = 0;
  uint64_t dropped_malformed = 0;
  uint64_t dropped_no_qp = 0;
  uint64_t dropped_state = 0;
  uint64_t dropped_address = 0;
  uint64_t dropped_tver = 0;
  uint64_t dropped_transport = 0;
  uint64_t cnp_sent = 0;
  uint64_t cnp_received = 0;
  uint64_t ce_marked_received = 0;
  uint64_t cq_overflow = 0;
  uint64_t qkey_viol_cntr = 0;     // UD packets dropped for a wrong Q_Key (MR-UD-02)
  uint64_t dropped_no_rwqe = 0;    // UD/UC packets dropped: no receive WQE, or it was too small
  uint64_t ext_retransmitted = 0;  // Ext PSNs sent again (selective: only the lost ones)
  uint64_t ext_acks_sent = 0;      // Ext ACKs and NAKs, each with a SACKETH
  // Packets with a trim mark read as trimmed for an Ext QP with TRIM (section 23): NAKed,
  // a READ reissued, or silently discarded; never placed.
  uint64_t ext_trimmed_received = 0;
  uint64_t ext_trim_naks_sent = 0;  // NAK 0x65 and 0x66
  // Section 22.2: new packets refused for want of a message context (NAK 0x6B, or dropped
  // on a QP without NONFATAL).
  uint64_t ext_resource_refused = 0;
  // Section 26.7: raises of a credit limit (each in an ACK, a NAK or a CREDIT packet), the
  // CREDIT packets among them, and the times a sender had work but no credit for it.
  uint64_t ext_credit_raises = 0;
  uint64_t ext_credit_packets_sent = 0;
  uint64_t ext_credit_waits = 0;
  uint64_t ext_probes_sent = 0;  // PROBE packets (section 25.2)
  // Section 19.4: packets of an Ext QP discarded unread because SX disagreed with the QP's
  // SECURE state, their SECH named no usable key, or a tag failed (MR-SE-05, MR-SE-13); or
  // because their PN was a replay (MR-SE-06). And packets a secure sender held back: its
  // epoch was used up and no next key installed (MR-SE-08).
  uint64_t se_auth_fail = 0;
  uint64_t se_replay = 0;
  uint64_t se_rekey_blocked = 0;
  ext::EvCounters ev;  // the EV events of section 25.1, every Ext QP's

  template <class F>
  void for_each(F&& f) const {
    f("sent_pkts", sent_pkts);
    f("rcvd_pkts", rcvd_pkts);
    f("duplicate_request", duplicate_request);
    f("out_of_seq_request", out_of_seq_request);
    f("rcvd_rnr_err", rcvd_rnr_err);
    f("send_rnr_err", send_rnr_err);
    f("rcvd_seq_err", rcvd_seq_err);
    f("retry_exceeded_err", retry_exceeded_err);
    f("retry_rnr_exceeded_err", retry_rnr_exceeded_err);
    f("completer_retry_err", completer_retry_err);
    f("rdma_sends", rdma_sends);
    f("rdma_recvs", rdma_recvs);
    f("ack_deferred", ack_deferred);
    f("bad_pkey_cntr", bad_pkey_cntr);
    f("icrc_errors", icrc_errors);
    f("dropped_malformed", dropped_malformed);
    f("dropped_no_qp", dropped_no_qp);
    f("dropped_state", dropped_state);
    f("dropped_address", dropped_address);
    f("dropped_tver", dropped_tver);
    f("dropped_transport", dropped_transport);
    f("cnp_sent", cnp_sent);
    f("cnp_received", cnp_received);
    f("ce_marked_received", ce_marked_received);
    f("cq_overflow", cq_overflow);
    f("qkey_viol_cntr", qkey_viol_cntr);
    f("dropped_no_rwqe", dropped_no_rwqe);
    f("ext_retransmitted", ext_retransmitted);
    f("ext_acks_sent", ext_acks_sent);
    f("ext_trimmed_received", ext_trimmed_received);
    f("ext_trim_naks_sent", ext_trim_naks_sent);
    f("ext_resource_refused", ext_resource_refused);
    f("ext_credit_raises", ext_credit_raises);
    f("ext_credit_packets_sent", ext_credit_packets_sent);
    f("ext_credit_waits", ext_credit_waits);
    f("ext_probes_sent", ext_probes_sent);
    f("se_auth_fail", se_auth_fail);
    f("se_replay", se_replay);
    f("se_rekey_blocked", se_rekey_blocked);
    f("ev_assumed_bad", ev.ev_assumed_bad);
    f("ev_ack_path_bad", ev.ev_ack_path_bad);
    f("ev_good", ev.ev_good);
    f("ev_spurious_rto", ev.ev_spurious_rto);
    f("ev_damped", ev.ev_damped);
  }
};

}  // namespace mr::transport
