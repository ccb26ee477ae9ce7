// File: impair_command.h
//
// `impair [dir=tester|dut|both] loss=2% reorder=1% duplicate=0.5% delay=1% corrupt=0.1%
//  ecn=5% [delay_us=N] [seed=N]` starts seeded random impairment of a direction's frames
// (tester -> DUT, DUT -> tester; default both) for the rest of the script or until
// `impair off [dir=...]`. Each direction's seed is derived from the test's seed and the
// line unless seed= is given, and is logged in the test's packet ladder, so a run is
// replayed exactly with the same --seed.
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void impair(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
