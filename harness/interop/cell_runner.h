// File: cell_runner.h
//
// Runs one interop cell between two connected peers and judges it on both sides:
//   - the completions: the requester's (status SUCCESS, the operation's opcode, byte_len
//     for READ and atomics) and the responder's (one RECV of the message's length for
//     SEND, none otherwise), and nothing else on either CQ;
//   - the memory: the destination holds the seeded pattern, the guard bytes around every
//     region are intact, and for atomics the requester got the original value back and
//     the responder's word holds the new one.
// Every wait is bounded (deadline_ms for the whole exchange). The peers are set up,
// connected and torn down here; the link beneath them is the caller's.
//
//   CellSides sides{.reference = ref, .dut = rxe, ...};
//   CellOutcome o = run_cell(cell, sides, seed);
//   if (!o.passed()) for (auto& f : o.failures) log(f);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/interop/cell.h"
#include "harness/interop/peer.h"
#include "reference/wire/address.h"

namespace mr::interop {

struct Identity {
  wire::MacAddress mac;
  wire::Ipv4Address ip;
};

struct CellSides {
  Peer& reference;
  Peer& dut;
  Identity reference_id;
  Identity dut_id;
  std::string dut_name = "rxe";  // in failure messages
  uint8_t reference_retry_cnt = 7;
  // rxe takes retry_cnt 7 as "retry forever" (protocol.md §2.12 D4): 6 keeps it bounded.
  uint8_t dut_retry_cnt = 6;
};

struct CellOutcome {
  std::vector<std::string> failures;  // empty: the cell passed
  uint64_t duration_ns = 0;           // post_send to the last expected completion
  std::vector<CompletionRecord> requester_completions;
  std::vector<CompletionRecord> responder_completions;
  uint32_t requester_psn = 0;  // the PSNs the QPs started at (seeded)
  uint32_t responder_psn = 0;
  bool passed() const { return failures.empty(); }
};

// Bounded by a deadline that grows with the message size (TCG is slow, loss costs timeouts).
uint64_t cell_deadline_ms(const Cell& cell);

CellOutcome run_cell(const Cell& cell, const CellSides& sides, uint64_t seed);

}  // namespace mr::interop
