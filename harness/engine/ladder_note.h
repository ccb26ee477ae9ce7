// File: ladder_note.h
//
// A line of the test's packet ladder that is no packet: what a command did to the test bed
// (an impairment, the bottleneck) or what it measured (rates, credit), at the time it ran,
// referenced as "SCRIPT.mrt:LINE command".
#pragma once

#include <string>

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void note_in_ladder(TestContext& ctx, const script::Command& c, const std::string& text);

}  // namespace mr::engine
