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
#include <deque>

#include "reference/transport/ext/ack_policy.h"
#include "reference/transport/ext/negotiation.h"
#include "reference/transport/ext/ordered_completion.h"
#include "reference/transport/ext/received_psn_window.h"
#include "reference/transport/ext/rto_estimator.h"
#include "reference/transport/ext/sack_bitmap.h"
#include "reference/transport/ext/sent_psn_records.h"

namespace mr::transport::ext {

struct ExtQpParameters {
  ExtSenderParameters sender;
  RtoBounds rto;
  AckParameters acks;
  uint8_t local_mpr = 8;  // the window this receiver advertises, units of 128 PSNs
};

struct ExtQpState {
  ExtQpState(const ExtAgreement& agreed, uint32_t sq_psn, uint32_t rq_psn,
             const ExtQpParameters& parameters)
      : agreement(agreed),
        sent(sq_psn, parameters.sender),
        rto(parameters.rto),
        window(rq_psn, parameters.local_mpr),
        acks(parameters.acks) {}

  ExtAgreement agreement;

  // sender
  SentPsnRecords sent;
  RtoEstimator rto;
  std::deque<Retransmission> retransmit;  // PSNs to send again, oldest cause first
  uint32_t next_msn = 1;                  // MR-EX-11: the first request message's MSN is 1

  // receiver
  ReceivedPsnWindow window;
  SackCursor cursor;
  AckPolicy acks;
  MessageCompletions completions;

  size_t heap_bytes() const { return sent.heap_bytes() + window.heap_bytes(); }
};

}  // namespace mr::transport::ext
