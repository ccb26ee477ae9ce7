// File: script_loops.h
//
// The `repeat max=N until A == B` ... `end` loops of a script: where each bracket's partner
// is, and how many passes each loop has made. The condition is tested before every pass
// (a loop may run zero times), modulo 2^24 as PSNs and MSNs compare; every loop is bounded
// by its max=, a failure when reached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

class ScriptLoops {
 public:
  explicit ScriptLoops(const std::vector<script::Statement>& statements);

  // At `repeat` (statement pc): the index to continue after, i.e. pc to run the body, or
  // the matching `end` to leave the loop.
  size_t enter(size_t pc, TestContext& ctx);

  // At `end`: continue at the `repeat` itself, which tests the condition again.
  // (For a `repeat` at index 0 this wraps to SIZE_MAX; the caller's ++pc wraps it back.)
  size_t back_to_repeat(size_t pc) const { return partner_.at(pc) - 1; }

 private:
  const std::vector<script::Statement>& statements_;
  std::map<size_t, size_t> partner_;
  std::map<size_t, uint64_t> passes_;
};

}  // namespace mr::engine
