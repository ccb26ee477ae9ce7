// File: command_args.h
//
// The arguments of a `dut`, `tester` or `impair` line by name, evaluated when asked for;
// a name the command does not take is a harness error at its column, as is a value of the
// wrong kind ("tester post_send T len: unknown symbol 'X'").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

// " (did you mean 'len'?)" for a word at most two edits from one of `known`, else "".
std::string did_you_mean(const std::string& word, const std::set<std::string>& known);

class Args {
 public:
  Args(const script::Command& c, TestContext& ctx, const std::set<std::string>& allowed);
  bool has(const std::string& n) const { return args_.contains(n); }
  uint64_t number(const std::string& n, uint64_t fallback);
  // A NAME (RC, SUCCESS, A) or a string.
  std::string name(const std::string& n, const std::string& fallback);
  std::vector<uint8_t> bytes(const std::string& n);
  // A percentage in parts per million (`loss=2%` -> 20000); fallback when absent.
  uint64_t ppm(const std::string& n, uint64_t fallback);
  const script::Position& pos(const std::string& n) const;

 private:
  std::string what(const std::string& n) const { return c_.actor + " " + c_.name + " " + n; }

  const script::Command& c_;
  TestContext& ctx_;
  std::map<std::string, const script::FieldArg*> args_;
};

}  // namespace mr::engine
