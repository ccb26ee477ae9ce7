// File: bottleneck_commands.h
//
// The reference bottleneck in scripts (spec section 26.4, docs/test-language.md):
//   bottleneck on rate_mbps=N ecn_k=BYTES delay_us=N [plane=P]
//       a FIFO at N Mbit/s that marks CE above ECN_K bytes queued, for every frame the DUT
//       sends or for the Ext frames on plane P (one queue per plane);
//   bottleneck expect_fair_share windows=N     MR-SC-21: each stream's goodput over N
//   bottleneck expect_utilisation windows=N    MR-SC-22: and their total
//       windows of T_SC_FAIR_WINDOW, the first starting T_SC_CONVERGE after the last of the
//       DUT's streams started (each runs the exchange until its windows have passed);
//   bottleneck expect_goodput A capacity_mbps=N
//       MR-PF-06: the goodput of A's stream from its first delivered frame to its last is at
//       least R_PF_GOODPUT_MIN x N Mbit/s (N: what the planes left carry).
// Every judgement also writes its measured rates into the packet ladder.
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void run_bottleneck_command(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
