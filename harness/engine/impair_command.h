// File: impair_command.h
//
// `impair [dir=tester|dut|both] [plane=P] [ev=E] loss=2% reorder=1% duplicate=0.5% delay=1%
//  corrupt=0.1% ecn=5% [delay_us=N] [seed=N]` starts seeded random impairment of a
// direction's frames (tester -> DUT, DUT -> tester; default both), or of its Ext frames on
// one plane or with one EV, for the rest of the script or until `impair off [dir=...]
// [plane=P] [ev=E]`. Each direction's seed is derived from the test's seed and the line
// unless seed= is given, and is logged in the test's packet ladder, so a run is replayed
// exactly with the same --seed.
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void impair(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
