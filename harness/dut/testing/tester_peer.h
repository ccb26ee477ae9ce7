// File: tester_peer.h
//
// Test helpers for a test that drives a DUT through DutControl and plays the DUT's RC peer
// on the tester's end of the link with a reference device it drives directly, not through
// the protocol:
//   - control_call: a DutControl call whose error reply is a test failure;
//   - create_peer_end, connect_peer_end: the peer's PD, region (local write), CQ and RC QP,
//     moved to RTS towards the DUT's QP with the QP attributes' defaults (PSN 0 both ways).
// Both set-up steps fail with fatal test failures: call them under ASSERT_NO_FATAL_FAILURE.
//
//   const DutCall call = control_call(control);
//   PeerEnd end;
//   ASSERT_NO_FATAL_FAILURE(create_peer_end(peer, 4096, 0x5000, end));
//   ASSERT_NO_FATAL_FAILURE(connect_peer_end(peer, end, dut_qpn, "02:00:00:00:00:02",
//                                            "198.18.0.2"));
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "harness/agent/reference_backend.h"
#include "harness/dut/dut_control.h"

namespace mr::dut::testing {

// Sends op with args, returns the reply body ({} and a test failure on an error reply).
using DutCall = std::function<Json(std::string_view op, Json args)>;

// `control` must outlive the call.
DutCall control_call(DutControl& control);

struct PeerEnd {
  uint32_t pd = 0;
  uint32_t cq = 0;
  uint32_t qpn = 0;
  agent::MrResult mr;
};

// One PD, one region of `length` bytes at `va` (local write), one CQ for both queues (depth
// 16), one RC QP in RESET.
void create_peer_end(agent::ReferenceBackend& peer, uint64_t length, uint64_t va, PeerEnd& end);
// RESET -> INIT -> RTR (towards dut_qpn at dut_mac and dut_ip) -> RTS.
void connect_peer_end(agent::ReferenceBackend& peer, const PeerEnd& end, uint32_t dut_qpn,
                      const std::string& dut_mac, const std::string& dut_ip);

}  // namespace mr::dut::testing
