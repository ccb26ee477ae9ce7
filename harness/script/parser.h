// File: parser.h
//
// Parses .mrt test cases (docs/test-language.md). The parser collects every diagnostic it
// can (it does not stop at the first), each naming file:line:column and what was expected,
// and keeps no global state.
//
// Usage:
//   auto parsed = parse_script(text, "testcases/base/psn/RC-PSN-004.mrt");
//   if (!parsed.diagnostics.empty()) for (auto& d : parsed.diagnostics) print(d.to_string());
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/script/ast.h"

namespace mr::script {

struct ParseResult {
  Script script;
  std::vector<Diagnostic> diagnostics;
  bool ok() const { return diagnostics.empty(); }
};

ParseResult parse_script(std::string_view text, const std::string& path);
ParseResult parse_file(const std::string& path);

// Metadata keys the language knows; others are diagnostics (a typo must not pass silently).
bool is_metadata_key(std::string_view key);

}  // namespace mr::script
