// File: tester_commands.h
//
// The lines that drive the tester's reference QPs (docs/test-language.md, "Driven
// exchanges"):
//   tester qp T = create_qp(type=RC, mtu=1024, mr_len=2097152, ...)
//   connect T A                       T takes the QPN, PSNs and path A was given; both sides
//                                     learn the other's keys and addresses
//   tester post_send T opcode=RDMA_WRITE len=65536 count=16 ...
//   tester post_recv T count=N len=L
//   tester expect_completion T status=SUCCESS opcode=RDMA_WRITE count=16
//   tester expect_no_completion T window=MS
//   tester wait T until=idle [max_ms=MS]
//   tester expect_mem T offset=O len=N pattern=A [from=O2] | data=b"..."
//   impair dir=tester|dut|both loss=2% reorder=1% duplicate= delay= corrupt= ecn= [delay_us=]
//          [seed=N]   /   impair off [dir=...]
// Each QP's memory region starts filled with a seeded pattern (region_pattern), so that a
// transfer is checked byte for byte against what the other side's region held.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

// `tester ...`, `connect ...` and `impair ...` lines.
void run_tester_command(const script::Command& c, TestContext& ctx);

// The seed of a QP's region pattern: from the test's seed and the QP's script name, so that
// a run is replayed with --seed and two QPs never share a pattern.
uint64_t region_pattern_seed(uint64_t test_seed, const std::string& qp_name);

}  // namespace mr::engine
