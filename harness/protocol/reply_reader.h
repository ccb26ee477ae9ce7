// File: reply_reader.h
//
// Checked reading of one control reply: each member read names its path, and the first
// missing or wrongly typed one becomes an EPROTO ControlError quoting the reply (the agent's
// fault, reported as what came), never an exception.
//
//   ReplyReader r("poll_cq", reply);
//   for (size_t i = 0; i < r.array(reply, "", "completions").size(); ++i) ...
//   if (auto e = r.error()) return Unexpected(*e);
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "harness/protocol/control_error.h"

namespace mr::protocol {

using Json = nlohmann::json;

// The reply quoted in an error message: its JSON, cut at `max_chars` ("..." marks the cut).
std::string quote_reply(const Json& reply, size_t max_chars = 200);

// The EPROTO error of a malformed reply to `op`: "<op> reply: <path>: <problem>; reply: ...".
protocol::ControlError malformed_reply(std::string_view op, std::string_view path,
                                       std::string_view problem, const Json& reply);

class ReplyReader {
 public:
  // `reply` must outlive the reader. A reply that is not an object is malformed at once.
  ReplyReader(std::string_view op, const Json& reply);

  // Member `key` of `object` (whose path is `parent`, "" for the reply itself). A missing or
  // mistyped member records the first error and reads as 0, "", false or an empty array.
  uint64_t number(const Json& object, std::string_view parent, std::string_view key,
                  uint64_t max = std::numeric_limits<uint64_t>::max());
  std::optional<uint64_t> optional_number(const Json& object, std::string_view parent,
                                          std::string_view key,
                                          uint64_t max = std::numeric_limits<uint64_t>::max());
  std::string string(const Json& object, std::string_view parent, std::string_view key);
  std::optional<bool> optional_boolean(const Json& object, std::string_view parent,
                                       std::string_view key);
  const Json& array(const Json& object, std::string_view parent, std::string_view key);
  const Json& object(const Json& object, std::string_view parent, std::string_view key);
  // An element already read as part of an array: checks its type.
  uint64_t number_value(const Json& value, const std::string& path,
                        uint64_t max = std::numeric_limits<uint64_t>::max());
  std::string string_value(const Json& value, const std::string& path);
  bool is_object(const Json& value, const std::string& path);

  const std::optional<protocol::ControlError>& error() const { return error_; }
  const Json& reply() const { return reply_; }
  // Records `problem` at `path` unless an earlier error is recorded.
  void fail(const std::string& path, std::string_view problem);

 private:
  const Json* find(const Json& object, std::string_view parent, std::string_view key,
                   bool required);

  std::string op_;
  const Json& reply_;
  std::optional<protocol::ControlError> error_;
};

// "parent.key", or "key" at the top.
std::string member_path(std::string_view parent, std::string_view key);
// "parent[i]".
std::string element_path(std::string_view parent, size_t i);

}  // namespace mr::protocol
