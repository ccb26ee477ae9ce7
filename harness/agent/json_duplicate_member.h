// File: json_duplicate_member.h
//
// Finds a member named twice in one JSON object, at any depth. nlohmann-json keeps the last
// of two equal keys without a word, so `{"op":"create_pd","op":"reset"}` would run a reset;
// the protocol refuses such a request instead (docs/dut-control-protocol.md, "Strictness").
// The finder watches one parse through nlohmann's parser callback and names the first
// duplicate by its path, as error.field spells paths ("attrs.av.dip", "wr.sg_list[1].lkey").
//
//   DuplicateMemberFinder duplicates;
//   auto json = nlohmann::json::parse(text, duplicates.callback(), /*allow_exceptions=*/false);
//   if (duplicates.first()) return control_error(ErrorCode::kEinval, "...", *duplicates.first());
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mr::agent {

class DuplicateMemberFinder {
 public:
  DuplicateMemberFinder() = default;
  // The callback refers to this finder: it must not outlive it, and the finder must not move.
  DuplicateMemberFinder(const DuplicateMemberFinder&) = delete;
  DuplicateMemberFinder& operator=(const DuplicateMemberFinder&) = delete;

  // For nlohmann::json::parse. It keeps every value: the parse result is the usual one.
  nlohmann::json::parser_callback_t callback();
  // The path of the first member that repeats a key of its object; nullopt when none did.
  const std::optional<std::string>& first() const { return first_; }

 private:
  // An object or array being parsed.
  struct Level {
    bool object = true;
    std::string path;
    std::set<std::string> keys;  // object: the keys so far
    std::string key;             // object: the member being parsed
    size_t index = 0;            // array: the element being parsed
  };

  void on_event(nlohmann::json::parse_event_t event, const nlohmann::json& parsed);
  // The path of the value that starts now, inside the innermost level.
  std::string value_path() const;
  // A value of the innermost level ended: an array moves on to its next element.
  void value_done();

  std::vector<Level> levels_;
  std::optional<std::string> first_;
};

}  // namespace mr::agent
