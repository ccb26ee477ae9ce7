// File: memory_commands.h
//
// The lines that set and judge memory on either side of an exchange:
//   dut write_mem A offset=O data=b"..."
//   dut fill_mem A [offset=O len=N]          A's region pattern (region_pattern_seed)
//   dut expect_mem A offset=O data=b"..." | len=N pattern=X [from=O2]
//   tester expect_mem T offset=O data=b"..." | len=N pattern=X [from=O2]
// `pattern=X` is QP X's region pattern (a tester or a DUT QP) from byte `from` (default:
// `offset`), so that "the DUT's region now holds what the tester's held" reads as one line.
// A difference is reported at its first byte, with how many bytes differ.
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void write_dut_mem(const script::Command& c, TestContext& ctx);
// dut dereg_mr A: the DUT deregisters A's memory region (a local error for work that still
// needs it, MR-NF-14).
void dereg_dut_mem(const script::Command& c, TestContext& ctx);
void fill_dut_mem(const script::Command& c, TestContext& ctx);
void expect_dut_mem(const script::Command& c, TestContext& ctx);
void expect_tester_mem(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
