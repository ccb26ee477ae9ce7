// File: ext_qp_state.h
//
// What an Ext QP (spec Part II) keeps beyond a base QP: the agreement negotiated at INIT to
// RTR, the sender's per-PSN records and RTO, and the receiver's PSN window, SACK cursor,
// ACK policy and in-order completions. A base QP has none of it (QueuePair::ext is empty),
// so an idle base QP costs what it did; an Ext QP's heap grows with its windows
// (heap_bytes()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "reference/transport/ext/ack_path_ledger.h"
#include "reference/transport/ext/ack_policy.h"
#include "reference/transport/ext/congestion_window.h"
#include "reference/transport/ext/ev_selector.h"
#include "reference/transport/ext/ev_table.h"
#include "reference/transport/ext/negotiation.h"
#include "reference/transport/ext/ordered_completion.h"
#include "reference/transport/ext/read_reissue.h"
#include "reference/transport/ext/received_psn_window.h"
#include "reference/transport/ext/receiver_credit.h"
#include "reference/transport/ext/rto_estimator.h"
#include "reference/transport/ext/sack_bitmap.h"
#include "reference/transport/ext/secure_receiver.h"
#include "reference/transport/ext/secure_transmitter.h"
#include "reference/transport/ext/sent_psn_records.h"
#include "reference/transport/ext/trim_classifier.h"
#include "reference/transport/ring_deque.h"
#include "reference/transport/work_request.h"
#include "reference/wire/atomic_eth.h"

namespace mr::transport::ext {

struct ExtQpParameters {
  ExtSenderParameters sender;
  RtoBounds rto;
  AckParameters acks;
  uint8_t local_mpr = 8;  // the window this receiver advertises, units of 128 PSNs
  PathFailureParameters paths;
  CongestionParameters congestion;
  AdaptiveParameters adaptive;
  bool ce_acks_when_adaptive = true;  // MR-MU-17 (false only for a mutant)
  uint32_t ev_set_size = 16;          // N_EV_DEFAULT: the generated set's entries
  // The trim marks and MR-TR-07's choice; `enabled` is each QP's agreement, not this.
  TrimParameters trim;
  // Section 26.7, for QPs that agreed CREDIT; line_rate_mbps is the device's, all planes.
  CreditParameters credit;
  // Section 22.2's NAK 0x6B, for QPs that agreed NONFATAL.
  uint64_t resource_delay_ns = 100'000;  // T_NF_RESOURCE_DELAY
  uint32_t resource_retry = 7;           // N_NF_RESOURCE_RETRY
  // Section 22.2: the messages this receiver tracks ahead of its cumulative PSN (a last
  // packet recorded, or a READ or ATOMIC held, before every earlier PSN is in); a new one
  // beyond them is refused (NAK 0x6B with NONFATAL, else dropped). 0: as many as the window.
  uint32_t message_contexts = 0;
  // Section 19.4's windows and limits, for QPs that agreed SECURE.
  SecureParameters secure;
};

// A work request NONFATAL gave up (section 22): the status it completes with and the RESYNC
// code that covers its PSNs (1 OP_ERROR after NAK 0x68-0x6A, 3 RESOURCE after NAKs 0x6B).
struct FailedWork {
  WcStatus status = WcStatus::kRemoteOperationError;
  uint8_t resync_code = 1;
};

// Section 20.3: one usable entry per transmission, by the agreed features.
inline EvSelectionMode selection_mode(const ExtAgreement& agreed) {
  if (!agreed.has(wire::kMxcapMultipath)) return EvSelectionMode::kSingle;
  return agreed.has(wire::kMxcapAdaptive) ? EvSelectionMode::kAdaptive
                                          : EvSelectionMode::kOblivious;
}

// The receiver's ACK policy of this QP: with adaptive selection agreed, every CE-marked
// packet gets its own ACK, so that the mark reaches the sender with its EV (MR-MU-17).
inline AckParameters ack_parameters(const ExtQpParameters& p, const ExtAgreement& agreed) {
  AckParameters acks = p.acks;
  acks.adaptive = p.ce_acks_when_adaptive && selection_mode(agreed) == EvSelectionMode::kAdaptive;
  return acks;
}

// A READ or ATOMIC request the responder holds until every earlier PSN has arrived
// (MR-OO-10), or one it serves again (a duplicate or a reissue): what executing it needs.
struct HeldRequest {
  uint32_t psn = 0;
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint32_t dma_length = 0;  // an ATOMIC's is 8
  uint32_t msn = 0;
  uint32_t mxh_offset = 0;  // of this (re)issue: the original READ's PSN is psn - offset / PMTU
  AnsweredPacket answered;  // what its ACK echoes
  bool answered_while_held = false;  // its ACK left when it arrived early (MR-SA-20)
  // An ATOMIC: its opcode (COMPARE_SWAP or FETCH_ADD) and AtomicETH; none for a READ.
  std::optional<std::pair<uint8_t, wire::AtomicEth>> atomic;
};

// The original value an executed ATOMIC returned, by PSN: a duplicate of it is answered
// with the same value and not executed again (MR-AT-04).
struct AtomicResult {
  uint32_t psn = 0;
  uint64_t original = 0;
};

// What a message's last packet said, kept until the message completes in MSN order.
struct ExtMessageEnd {
  uint32_t rqsn = 0;  // 0: the message consumes no receive WQE (a WRITE without immediate)
  bool send = false;  // SEND, else RDMA WRITE with immediate
  uint32_t byte_len = 0;
  std::optional<uint32_t> imm;
  bool solicited = false;
  std::optional<uint32_t> invalidate_rkey;  // SEND with invalidate: the R_Key its IETH names
};

struct ExtQpState {
  ExtQpState(const ExtAgreement& agreed, EvTable ev_set, uint32_t sq_psn, uint32_t rq_psn,
             const ExtQpParameters& parameters, bool shared_receive_queue, uint64_t now_ns)
      : agreement(agreed),
        evs(std::move(ev_set)),
        selector(selection_mode(agreed), parameters.adaptive),
        sent(sq_psn, parameters.sender),
        rto(parameters.rto),
        window(rq_psn, parameters.local_mpr),
        cursor(parameters.acks.ara_lookback, parameters.acks.rotates_bitmap),
        acks(ack_parameters(parameters, agreed)),
        binding(shared_receive_queue),
        resource_delay_ns(parameters.resource_delay_ns),
        resource_retry(parameters.resource_retry),
        message_contexts(parameters.message_contexts) {
    if (agreed.has(wire::kMxcapCc)) cc.emplace(parameters.congestion, now_ns);
    if (agreed.has(wire::kMxcapCredit)) {
      credit_tx.emplace(parameters.credit.unsolicited, parameters.credit.modulo_grant_order);
      credit_rx.emplace();
      credit_stall_bound_ns = parameters.credit.timeout_ns + parameters.credit.grant_delay_ns;
    }
    trim = parameters.trim;
    trim.enabled = agreed.has(wire::kMxcapTrim);
  }

  ExtAgreement agreement;

  // both: the EV set this end sends on (section 20), and how it picks an entry
  EvTable evs;
  EvSelector selector;

  // both, when SECURE is agreed (section 19.4): the keys and PNs of each direction
  std::optional<SecureTransmitter> secure_tx;
  std::optional<SecureReceiver> secure_rx;

  // sender
  SentPsnRecords sent;
  RtoEstimator rto;
  RingDeque<Retransmission> retransmit;  // PSNs to send again, oldest cause first
  // Section 26's window when CC is agreed; PSNs sent and neither acknowledged nor SACKed
  // (each counted as a full MTU of bytes in flight).
  std::optional<CongestionWindow> cc;
  uint64_t psns_in_flight = 0;
  // Section 26.7 when CREDIT is agreed: S and L, and the cost in bytes of what is posted and
  // not yet sent (the MXH Pending field adds the retransmissions waiting).
  std::optional<CreditSender> credit_tx;
  uint64_t unsent_credit_bytes = 0;
  // Since when retransmissions have waited for a grant, and how long before one lost packet's
  // cost is taken back (T_CR_TIMEOUT + T_CR_GRANT_DELAY; SRTT is added when it is used).
  std::optional<uint64_t> credit_stall_ns;
  uint64_t credit_stall_bound_ns = 0;
  uint32_t next_msn = 1;   // MR-EX-11: the first request message's MSN is 1
  uint32_t next_rqsn = 1;  // MR-EX-12: of messages that consume a receive WQE
  // READs sent and not yet complete, by first PSN (section 21.3).
  std::map<uint32_t, OutstandingRead> reads;
  // NONFATAL (section 22): work requests given up, by first PSN; their PSNs go as RESYNCs,
  // never as data again. PSNs NAKed 0x6B, with the count of consecutive such NAKs.
  std::map<uint32_t, FailedWork> failed_wqes;
  std::map<uint32_t, uint32_t> resource_naks;
  // MR-PF-14: timeouts of a PSN sent once that moved its entry to ASSUMED_BAD, with the EV and
  // TX timestamp of the retransmission that followed (once sent): an ACK with DUP = 1 that
  // echoes them shows the first copy had arrived, and the entry is GOOD again. The newest
  // kRtoWatches only: the echo comes within a round trip or not at all.
  struct RtoWatch {
    uint32_t psn = 0;
    size_t entry = 0;
    bool retransmitted = false;
    uint16_t ev = 0;
    uint32_t tx_timestamp = 0;
  };
  static constexpr size_t kRtoWatches = 16;
  std::vector<RtoWatch> rto_watches;
  // Work waits for a usable EV set entry: when to look again (MR-MU-04).
  std::optional<uint64_t> ev_retry_ns;
  // PSNs NAKed RNR or 0x6B and when each may go again (MR-OO-12, MR-NF-08), oldest first.
  std::vector<std::pair<uint64_t, uint32_t>> rnr_waits;

  // receiver
  ReceivedPsnWindow window;
  SackCursor cursor;
  AckPolicy acks;
  TrimParameters trim;                      // the marks, and whether TRIM was agreed (section 23)
  std::optional<CreditReceiver> credit_rx;  // G, C, D when CREDIT is agreed (section 26.7)
  MessageCompletions completions;
  // Receive WQEs taken from the QP's queue (or the SRQ) as RQSNs need them, by posting
  // sequence; `binding` says which sequence serves an RQSN.
  RqsnBinding binding;
  uint64_t next_wqe_sequence = 0;
  std::map<uint64_t, RecvWr> wqes;
  std::map<uint32_t, ExtMessageEnd> ends;         // by MSN
  std::map<uint32_t, HeldRequest> held_requests;  // arrived before an earlier PSN, by PSN
  // NONFATAL (section 22.1): PSNs answered with NAK 0x68-0x6A, each with its NAK (every copy
  // draws it again until a RESYNC covers the PSN), and the MSNs of messages failed by such a
  // NAK or by a RESYNC: none of their bytes is placed, their receive WQE completes in error.
  std::map<uint32_t, uint8_t> failed_psns;
  // By MSN, the status its receive WQE completes with: remote operational error after a NAK
  // or a RESYNC of code 1, remote abort after one of code 2 or 3 (section 22.3).
  std::map<uint32_t, WcStatus> failed_msns;
  // The newest kAtomicResults ATOMICs executed; a duplicate older than those is not answered
  // (its requester had every later PSN acknowledged, so it has moved on).
  static constexpr size_t kAtomicResults = 64;
  RingDeque<AtomicResult> atomic_results;
  // The last kResponsePaths READ responses sent: the EV set entry each left on and when, in
  // a ring by PSN, so that a reissue asking for one again blames that entry's path (section
  // 25.1's ACK-path rule applied to responses: they are the responder's only traffic a READ
  // requester reports lost). O(1) per response; allocated at the first READ response.
  struct ResponsePath {
    uint32_t psn = 0;
    uint16_t entry = 0;
    bool valid = false;
    uint64_t sent_ns = 0;
  };
  static constexpr size_t kResponsePaths = 4096;
  std::vector<ResponsePath> response_paths;
  // The ACKs and NAKs sent, their EVs and what they reported received, for the receiver's
  // ACK-path rule (section 25.1, MR-PF-15). Made at the first ACK of a QP whose set has more
  // entries than N_EV_MIN_ACTIVE: with fewer, no ACK-path loss can move an entry.
  std::unique_ptr<ext::AckPathLedger> ack_paths;

  uint64_t resource_delay_ns;
  uint32_t resource_retry;
  uint32_t message_contexts;
  // Section 22.2: the messages tracked ahead of the cumulative PSN, each holding a context.
  size_t messages_tracked() const { return ends.size() + held_requests.size(); }

  size_t heap_bytes() const { return sent.heap_bytes() + window.heap_bytes(); }
};

}  // namespace mr::transport::ext
