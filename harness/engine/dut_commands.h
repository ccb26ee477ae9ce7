// File: dut_commands.h
//
// The `dut ...` and `probe` statements: setting up QPs on the DUT through the control
// protocol and checking DUT-side outcomes (completions, memory, QP state).
#pragma once

#include <optional>
#include <utility>

#include "harness/engine/test_context.h"
#include "harness/protocol/dut_client.h"

namespace mr::engine {

void run_dut_command(const script::Command& c, TestContext& ctx);

// The DUT QP a `dut` line names (or the current one); nullptr after reporting the error.
QpBinding* named_dut_qp(const script::Command& c, TestContext& ctx);

// The typed control client over a DUT port (the test's): the only way the engine talks to a
// DUT's control side.
protocol::DutClient dut_client(DutPort& port);
inline protocol::DutClient dut_client(TestContext& ctx) { return dut_client(ctx.port); }

// Ends the test for the control error of the statement at `pos`: inconc when the DUT lacks a
// resource (ENOSPC), error otherwise (a malformed reply among them, quoted by the client).
void control_failed(TestContext& ctx, const script::Position& pos,
                    const protocol::ControlError& error);

// The value of one control request for the statement at `pos`, or nullopt once its error
// has ended the test (control_failed).
template <class T>
std::optional<T> checked(TestContext& ctx, const script::Position& pos, protocol::Reply<T> r) {
  if (!r) {
    control_failed(ctx, pos, r.error());
    return std::nullopt;
  }
  return std::move(*r);
}
inline bool checked(TestContext& ctx, const script::Position& pos, protocol::Reply<void> r) {
  if (!r) control_failed(ctx, pos, r.error());
  return r.has_value();
}

}  // namespace mr::engine
