// File: dut_commands.h
//
// The `dut ...` and `probe` statements: setting up QPs on the DUT through the control
// protocol and checking DUT-side outcomes (completions, memory, QP state).
#pragma once

#include "harness/engine/test_context.h"

namespace mr::engine {

void run_dut_command(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
