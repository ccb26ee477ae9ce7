// libFuzzer target: arbitrary bytes as a test case (.mrt).
//
// Beyond "no crash, no sanitizer report, no hang", it checks what a user relies on: every
// diagnostic points into the text (a line that exists, a column within it or just past its
// end), parsing is deterministic, and a script that parses has its required metadata.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "harness/script/parser.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

std::vector<size_t> line_lengths(std::string_view text) {
  std::vector<size_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(end - start);
    start = end + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto first = mr::script::parse_script(text, "fuzz.mrt");
  const auto again = mr::script::parse_script(text, "fuzz.mrt");
  check(first.diagnostics.size() == again.diagnostics.size());
  check(first.script.statements.size() == again.script.statements.size());
  const auto lengths = line_lengths(text);
  for (const auto& d : first.diagnostics) {
    check(d.file == "fuzz.mrt");
    check(d.pos.line >= 1 && static_cast<size_t>(d.pos.line) <= lengths.size());
    check(d.pos.column >= 1 &&
          static_cast<size_t>(d.pos.column) <= lengths[static_cast<size_t>(d.pos.line - 1)] + 1);
    check(!d.message.empty());
    (void)d.to_string();
  }
  if (first.ok()) {
    for (const char* key : {"tp", "clause", "purpose"}) check(first.script.metadata.contains(key));
  }
  return 0;
}
