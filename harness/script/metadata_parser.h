// File: metadata_parser.h
//
// A test case's header: the `# key: value` comment lines before its first statement (tp,
// clause, pics, group, purpose, ...), read into Script::metadata. Part of the parser
// (parser.cpp); is_metadata_key, in parser.h, is defined beside it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/script/ast.h"

namespace mr::script {

class MetadataParser {
 public:
  MetadataParser(const std::string& file, Script& script, std::vector<Diagnostic>& diags)
      : file_(file), script_(script), diags_(diags) {}

  // One comment line of the header, '#' and surrounding white space included.
  void comment(std::string_view line, int line_no);
  // After the last line: a diagnostic for each required key the header lacks.
  void finish();

 private:
  // Appends `value` to `key`'s (a line may repeat a key, `clauses` is `clause`).
  void add_value(std::string_view key, std::string_view value, Position at);

  const std::string& file_;
  Script& script_;
  std::vector<Diagnostic>& diags_;
  std::string last_key_;  // the key a line without "key:" continues (multi-line purpose)
};

}  // namespace mr::script
