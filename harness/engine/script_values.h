// File: script_values.h
//
// A script's own names and its assertions on values: `let e1 = last.ev` keeps a value the
// exchange has shown (the EV the DUT chose for a packet), and `check e2 != e1`,
// `check a == b`, `check distinct [e1, e2, e3]` and `check at_least 8 distinct [...]` judge
// such values, where a `>` line can
// only match one packet's fields against values known before it arrives. A false check is
// the DUT's failure at its line, with both values; a value that does not evaluate (an
// unknown name) is a harness error.
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

// `let NAME = EXPR`: NAME holds EXPR's value for the rest of the script (a later `let` of
// the same name, as in a loop's body, replaces it).
void bind_value(const script::Command& c, TestContext& ctx);

// `check ...` (names "equal", "differ", "distinct"; the parser's args); `assume ...`, the same
// forms, makes the test inconclusive where `check` fails it.
void check_values(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
