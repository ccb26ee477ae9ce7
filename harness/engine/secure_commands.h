// File: secure_commands.h
//
// The `dut` statements of secure mode's key management (spec section 19.4): the harness,
// as the management plane, installs a later epoch's keys at both ends of a secure
// connection and asks the DUT's sender to move to it (MR-SE-08, MR-SE-09).
//
//   dut secure_install A epoch=2   # both directions' SAs of epoch 2, at the DUT and the tester
//   dut secure_rotate A            # the DUT's sender moves to its installed next epoch
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void secure_install(const script::Command& c, TestContext& ctx);
void secure_rotate(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
