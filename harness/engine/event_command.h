// File: event_command.h
//
// `event ACTION [QP] dir=tester|dut psn=EXPR [tx=N] [us=N] [byte=N]` arms one fault (drop,
// duplicate, delay, corrupt, ECN mark, ...) on the frame of that direction, QP, PSN and
// transmission number; FaultPort fires it when the frame passes.
#pragma once

#include "harness/engine/fault_port.h"
#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

// Reports a bad line as a harness error in ctx; arms nothing then.
void arm_event(const script::Command& c, TestContext& ctx, FaultPort& faults);

}  // namespace mr::engine
