// File: dut_commands.h
//
// The `dut ...` and `probe` statements: setting up QPs on the DUT through the control
// protocol and checking DUT-side outcomes (completions, memory, QP state).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "harness/engine/test_context.h"

namespace mr::engine {

void run_dut_command(const script::Command& c, TestContext& ctx);

// The DUT QP a `dut` line names (or the current one); nullptr after reporting the error.
QpBinding* named_dut_qp(const script::Command& c, TestContext& ctx);

// One control request for the statement at `pos`: the reply, or nullopt once the request's
// error has ended the test (inconc when the DUT lacks a resource, ENOSPC; error otherwise).
std::optional<nlohmann::json> control_request(TestContext& ctx, const script::Position& pos,
                                              nlohmann::json request);

}  // namespace mr::engine
