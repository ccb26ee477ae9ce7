// File: json_reader.h
//
// Strict reading of one JSON object of a control message: every field is read through a
// method that checks its type and range and names the field's full path in the error
// ("wr.sg_list[2].length"), and finish() refuses any key nobody read. Integers are JSON
// integers or strings "0x..." / decimal (for clients whose JSON loses precision above
// 2^53); floats, booleans, negatives and values above the maximum are refused.
//
//   ObjectReader r(message, "");
//   auto pd = r.u32("pd");
//   auto va = r.optional_u64("va");
//   if (auto done = r.finish(); !done) return Unexpected(done.error());
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "harness/agent/control_vocabulary.h"

namespace mr::agent {

// The path of a member: "" + "pd" = "pd", "wr" + "rkey" = "wr.rkey".
std::string field_path(std::string_view parent, std::string_view key);
// An unsigned integer in either accepted form, at most max.
Result<uint64_t> read_unsigned(const nlohmann::json& value, const std::string& path,
                               uint64_t max = std::numeric_limits<uint64_t>::max());

class ObjectReader {
 public:
  // `object` must outlive the reader. A non-object gives an error on the first read.
  ObjectReader(const nlohmann::json& object, std::string path);

  const std::string& path() const { return path_; }
  bool has(std::string_view key) const;
  // The member, marked as read; null when absent.
  const nlohmann::json* member(std::string_view key);

  Result<uint64_t> u64(std::string_view key, uint64_t max = std::numeric_limits<uint64_t>::max());
  Result<uint32_t> u32(std::string_view key, uint32_t max = 0xffffffff);
  Result<std::optional<uint64_t>> optional_u64(std::string_view key,
                                               uint64_t max = std::numeric_limits<uint64_t>::max());
  Result<uint64_t> u64_or(std::string_view key, uint64_t fallback,
                          uint64_t max = std::numeric_limits<uint64_t>::max());
  Result<bool> boolean(std::string_view key);
  Result<bool> boolean_or(std::string_view key, bool fallback);
  // A string of at most max_length bytes.
  Result<std::string> string(std::string_view key, size_t max_length = 256);
  Result<std::optional<std::string>> optional_string(std::string_view key, size_t max_length = 256);
  // The member, which must be an object; the caller reads it with its own ObjectReader.
  Result<const nlohmann::json*> object(std::string_view key);
  Result<const nlohmann::json*> array(std::string_view key, size_t max_items);

  // Fails on the first key (in key order) that no read asked for.
  Result<void> finish() const;

 private:
  Result<const nlohmann::json*> required(std::string_view key);

  const nlohmann::json& object_;
  std::string path_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace mr::agent
