// File: congestion_commands.h
//
// The `dut` statement that reads an Ext sender's congestion window through the control
// protocol (query_qp attrs.cwnd, spec section 26.2, MR-SC-12):
//
//   dut expect_cwnd A bytes=141106   # within R_SC_CWND_TOLERANCE of it, or one PMTU
//
// Section 26.2 is exact, but a device may compute it in fixed point or batch its updates:
// the clause allows the larger of R_SC_CWND_TOLERANCE (a PIXIT parameter) and one PMTU.
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void expect_cwnd(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
