#include "harness/protocol/reply_reader.h"

#include <utility>

#include "reference/wire/wide_integer.h"

namespace mr::protocol {
namespace {

const Json& empty_array() {
  static const Json kEmpty = Json::array();
  return kEmpty;
}

const Json& empty_object() {
  static const Json kEmpty = Json::object();
  return kEmpty;
}

}  // namespace

std::string quote_reply(const Json& reply, size_t max_chars) {
  // Invalid UTF-8 in a string is replaced rather than thrown on.
  std::string s = reply.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

protocol::ControlError malformed_reply(std::string_view op, std::string_view path,
                                       std::string_view problem, const Json& reply) {
  std::string message(op);
  message += " reply: ";
  if (!path.empty()) message += std::string(path) + ": ";
  message += std::string(problem) + "; reply: " + quote_reply(reply);
  return {protocol::ErrorCode::kEproto, std::move(message), {}};
}

std::string member_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

std::string element_path(std::string_view parent, size_t i) {
  return std::string(parent) + "[" + std::to_string(i) + "]";
}

ReplyReader::ReplyReader(std::string_view op, const Json& reply) : op_(op), reply_(reply) {
  if (!reply.is_object()) fail("", "expected an object");
}

void ReplyReader::fail(const std::string& path, std::string_view problem) {
  if (!error_) error_ = malformed_reply(op_, path, problem, reply_);
}

const Json* ReplyReader::find(const Json& object, std::string_view parent, std::string_view key,
                              bool required) {
  if (!object.is_object()) return nullptr;  // the parent's own error is recorded already
  const auto it = object.find(key);
  if (it != object.end()) return &*it;
  if (required) fail(member_path(parent, key), "missing");
  return nullptr;
}

uint64_t ReplyReader::number_value(const Json& value, const std::string& path, uint64_t max) {
  uint64_t v = 0;
  if (value.is_string()) {
    // A 64-bit value above 2^53 - 1 comes as its string (wide_integer.h).
    const auto parsed = wire::parse_integer_text(value.get_ref<const std::string&>());
    if (!parsed) {
      fail(path, parsed.error() == wire::IntegerTextError::kTooLarge
                     ? "expected an unsigned 64-bit integer"
                     : "expected an unsigned integer or its decimal string");
      return 0;
    }
    v = *parsed;
  } else if (!value.is_number_integer() ||
             (!value.is_number_unsigned() && value.get<int64_t>() < 0)) {
    // A JSON integer that is not negative (nlohmann keeps small positive ones as signed).
    fail(path, "expected an unsigned integer");
    return 0;
  } else {
    v = value.get<uint64_t>();
  }
  if (v > max) {
    fail(path, "expected at most " + std::to_string(max) + ", got " + std::to_string(v));
    return 0;
  }
  return v;
}

std::string ReplyReader::string_value(const Json& value, const std::string& path) {
  if (!value.is_string()) {
    fail(path, "expected a string");
    return {};
  }
  return value.get<std::string>();
}

bool ReplyReader::is_object(const Json& value, const std::string& path) {
  if (value.is_object()) return true;
  fail(path, "expected an object");
  return false;
}

uint64_t ReplyReader::number(const Json& object, std::string_view parent, std::string_view key,
                             uint64_t max) {
  const Json* v = find(object, parent, key, true);
  return v ? number_value(*v, member_path(parent, key), max) : 0;
}

std::optional<uint64_t> ReplyReader::optional_number(const Json& object, std::string_view parent,
                                                     std::string_view key, uint64_t max) {
  const Json* v = find(object, parent, key, false);
  if (!v) return std::nullopt;
  return number_value(*v, member_path(parent, key), max);
}

std::string ReplyReader::string(const Json& object, std::string_view parent, std::string_view key) {
  const Json* v = find(object, parent, key, true);
  return v ? string_value(*v, member_path(parent, key)) : std::string();
}

std::optional<bool> ReplyReader::optional_boolean(const Json& object, std::string_view parent,
                                                  std::string_view key) {
  const Json* v = find(object, parent, key, false);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    fail(member_path(parent, key), "expected true or false");
    return false;
  }
  return v->get<bool>();
}

const Json& ReplyReader::array(const Json& object, std::string_view parent, std::string_view key) {
  const Json* v = find(object, parent, key, true);
  if (!v) return empty_array();
  if (!v->is_array()) {
    fail(member_path(parent, key), "expected an array");
    return empty_array();
  }
  return *v;
}

const Json& ReplyReader::object(const Json& object, std::string_view parent, std::string_view key) {
  const Json* v = find(object, parent, key, true);
  if (!v) return empty_object();
  if (!v->is_object()) {
    fail(member_path(parent, key), "expected an object");
    return empty_object();
  }
  return *v;
}

}  // namespace mr::protocol
