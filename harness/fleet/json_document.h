// File: json_document.h
//
// A JSON file a person wrote, parsed so that errors can name the line: nlohmann-json 3.11
// forgets positions once it has parsed, and keeps the last of two equal keys without a word.
// One parse records the line of every value by its path ("rows[2].dut", spelled as
// harness/agent's field paths) and refuses a member named twice in one object.
//
//   auto doc = JsonDocument::parse(text, "lab.fleet.json");
//   if (!doc) return Unexpected(doc.error());   // "lab.fleet.json:3: ... "
//   doc->where("rows[1].dut")                   // "lab.fleet.json:7: rows[1].dut"
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "reference/error/expected.h"

namespace mr::fleet {

class JsonDocument {
 public:
  // Syntax errors keep nlohmann's "line L, column C"; a duplicate member names its line.
  static Expected<JsonDocument, std::string> parse(std::string_view text, std::string origin);
  static Expected<JsonDocument, std::string> load(const std::string& path);

  const nlohmann::json& value() const { return value_; }
  const std::string& origin() const { return origin_; }
  // The line the value at `path` starts on; for a path that is absent (a missing member),
  // the line of its nearest present ancestor. 1 for the document itself.
  int line_of(std::string_view path) const;
  // "origin:line: path", the start of every error about that value.
  std::string where(std::string_view path) const;

 private:
  nlohmann::json value_;
  std::string origin_;
  std::map<std::string, int, std::less<>> lines_;
};

// The path of a member ("rows[2]" + "dut" = "rows[2].dut") and of an element.
std::string member_path(std::string_view parent, std::string_view key);
std::string element_path(std::string_view parent, size_t index);

}  // namespace mr::fleet
