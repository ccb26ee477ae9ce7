// File: judge.h
//
// HostFacts in, findings out: the doctor's rules, pure functions of what was seen.
//   no RDMA device, a port not ACTIVE, no RoCE v2 GID, a full-size packet larger than the
//   netdev MTU: error.   RoCE v2 only on IPv6 link-local, ECN off where tunable, PFC or
//   DSCP trust not visible, a tool not installed: warning.   Everything else: ok.
// PFC is never an error: lossy RoCE with selective retransmission is legitimate.
//
//   std::vector<Finding> f = judge(HostInspector(options).inspect());
#pragma once

#include <cstdint>
#include <vector>

#include "harness/doctor/finding.h"
#include "harness/doctor/host_facts.h"

namespace mr::doctor {

// The bytes a RoCE v2 packet adds to its payload in the worst case: IPv4 20 (IPv6 40),
// UDP 8, BTH 12, RETH 16 and ImmDt 4 (RDMA WRITE Only with Immediate), ICRC 4.
inline constexpr uint32_t kRoceV2OverheadIpv4 = 20 + 8 + 12 + 16 + 4 + 4;
inline constexpr uint32_t kRoceV2OverheadIpv6 = 40 + 8 + 12 + 16 + 4 + 4;

std::vector<Finding> judge(const HostFacts& facts);

// The two halves, each in a file of its own.
void judge_rdma(const HostFacts& facts, std::vector<Finding>& out);  // devices, ports, GIDs, MTU
void judge_qos(const HostFacts& facts, std::vector<Finding>& out);   // ECN, PFC, DSCP, offloads

}  // namespace mr::doctor
