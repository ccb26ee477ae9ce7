// File: read_responses.h
//
// The responder's READ responses (MR-RD-01..03, MR-MP-11): a READ's range segmented at the
// path MTU into ONLY or FIRST/MIDDLE/LAST, an AETH on all but MIDDLE, every packet's source
// re-validated against current memory (a failed check ends the READ with NAK 0x63 and the QP
// in Error). For a new READ and for a duplicate one alike (MR-RD-07).
#pragma once

#include <cstdint>

#include "reference/transport/qp_context.h"
#include "reference/wire/opcode.h"

namespace mr::transport {

struct ReadRange {
  uint32_t psn;  // of the first response
  uint64_t va;   // the READ's source
  uint32_t rkey;
  uint32_t length;
  uint32_t msn;  // what each AETH carries
};

void send_read_responses(QueuePair& qp, const ReadRange& read, QpContext& ctx);

// MR-RD-01: response i of `count` is ONLY, or FIRST, MIDDLE..., LAST.
uint8_t read_response_opcode(uint32_t i, uint32_t count);
// RDMA READ Response First, Middle, Last or Only.
inline bool is_read_response(uint8_t opcode) {
  return opcode >= wire::kOpRcRdmaReadResponseFirst && opcode <= wire::kOpRcRdmaReadResponseOnly;
}

}  // namespace mr::transport
