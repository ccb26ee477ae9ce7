// File: command_args.h
//
// The arguments of a `dut`, `tester` or `impair` line by name, evaluated when asked for,
// against the command's entry in the language's schema (harness/script/command_schema.h):
// the parser has checked names and literals; what is left for run time is a computed value
// that does not fit ("tester create_qp timeout: 40 does not fit") or does not evaluate
// ("tester post_send T len: unknown symbol 'X'"), a harness error at its column.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"
#include "harness/script/command_schema.h"

namespace mr::engine {

class Args {
 public:
  Args(const script::Command& c, TestContext& ctx);
  bool has(const std::string& n) const { return args_.contains(n); }
  uint64_t number(const std::string& n, uint64_t fallback);
  // A NAME (RC, SUCCESS, A) or a string.
  std::string name(const std::string& n, const std::string& fallback);
  std::vector<uint8_t> bytes(const std::string& n);
  // A list argument's values in order (empty when absent, or after reporting the error).
  std::vector<uint64_t> numbers(const std::string& n);
  // A percentage in parts per million (`loss=2%` -> 20000); fallback when absent.
  uint64_t ppm(const std::string& n, uint64_t fallback);
  const script::Position& pos(const std::string& n) const;

 private:
  // "dut post_recv len"; connect, impair and probe are their own command names.
  std::string what(const std::string& n) const {
    return (c_.actor == c_.name ? c_.actor : c_.actor + " " + c_.name) + " " + n;
  }

  const script::Command& c_;
  const script::CommandSpec* spec_ = nullptr;
  TestContext& ctx_;
  std::map<std::string, const script::FieldArg*> args_;
};

}  // namespace mr::engine
