// File: path_commands.h
//
// The `dut` statements of MetaRoCE Part II's management plane (spec section 25.1, the
// control protocol's set_ev_state, set_port and query_qp's ev_set):
//
//   dut set_ev_state A ev=0xc102 state=DENIED     # management denies (or allows: GOOD) an EV
//   dut set_port plane=0 up=0                      # a plane's port goes down (up=1: comes up)
//   dut expect_ev_state A ev=e1 state=ASSUMED_BAD  # the entry's state as the DUT reports it
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void set_ev_state(const script::Command& c, TestContext& ctx);
void set_port(const script::Command& c, TestContext& ctx);
void expect_ev_state(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
