#include "harness/agent/json_reader.h"

#include "reference/wire/wide_integer.h"

namespace mr::agent {
namespace {

const char* type_name(const nlohmann::json& v) {
  if (v.is_number_float()) return "a float";
  if (v.is_number()) return "a negative number";
  return v.type_name();
}

}  // namespace

std::string field_path(std::string_view parent, std::string_view key) {
  std::string path(parent);
  if (!path.empty()) path += '.';
  path += key;
  return path;
}

Result<uint64_t> read_unsigned(const nlohmann::json& value, const std::string& path, uint64_t max) {
  uint64_t n = 0;
  if (value.is_number_unsigned()) {
    n = value.get<uint64_t>();
  } else if (value.is_string()) {
    const auto parsed = wire::parse_integer_text(value.get_ref<const std::string&>());
    if (!parsed) {
      return control_error(ErrorCode::kEinval,
                           parsed.error() == wire::IntegerTextError::kTooLarge
                               ? "does not fit in 64 bits"
                               : "not an unsigned integer string",
                           path);
    }
    n = *parsed;
  } else if (value.is_number_integer()) {
    return control_error(ErrorCode::kEinval, "must not be negative", path);
  } else {
    return control_error(ErrorCode::kEinval,
                         std::string("must be an unsigned integer, not ") + type_name(value), path);
  }
  if (n > max) {
    return control_error(ErrorCode::kEinval, "must be at most " + std::to_string(max), path);
  }
  return n;
}

ObjectReader::ObjectReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {}

bool ObjectReader::has(std::string_view key) const {
  return object_.is_object() && object_.contains(key);
}

const nlohmann::json* ObjectReader::member(std::string_view key) {
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end()) return nullptr;
  read_.emplace(key);
  return &*it;
}

Result<const nlohmann::json*> ObjectReader::required(std::string_view key) {
  if (!object_.is_object()) {
    return control_error(ErrorCode::kEinval, "must be an object", path_);
  }
  const nlohmann::json* v = member(key);
  if (v == nullptr) return control_error(ErrorCode::kEinval, "is required", field_path(path_, key));
  return v;
}

Result<uint64_t> ObjectReader::u64(std::string_view key, uint64_t max) {
  auto v = required(key);
  if (!v) return Unexpected(v.error());
  return read_unsigned(**v, field_path(path_, key), max);
}

Result<uint32_t> ObjectReader::u32(std::string_view key, uint32_t max) {
  auto v = u64(key, max);
  if (!v) return Unexpected(v.error());
  return static_cast<uint32_t>(*v);
}

Result<std::optional<uint64_t>> ObjectReader::optional_u64(std::string_view key, uint64_t max) {
  const nlohmann::json* v = member(key);
  if (v == nullptr) return std::optional<uint64_t>{};
  auto n = read_unsigned(*v, field_path(path_, key), max);
  if (!n) return Unexpected(n.error());
  return std::optional<uint64_t>(*n);
}

Result<uint64_t> ObjectReader::u64_or(std::string_view key, uint64_t fallback, uint64_t max) {
  auto v = optional_u64(key, max);
  if (!v) return Unexpected(v.error());
  return v->value_or(fallback);
}

Result<bool> ObjectReader::boolean(std::string_view key) {
  auto v = required(key);
  if (!v) return Unexpected(v.error());
  return boolean_or(key, false);  // present: read as the optional form reads it
}

Result<bool> ObjectReader::boolean_or(std::string_view key, bool fallback) {
  const nlohmann::json* v = member(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) {
    return control_error(ErrorCode::kEinval,
                         std::string("must be true or false, not ") + type_name(*v),
                         field_path(path_, key));
  }
  return v->get<bool>();
}

Result<std::string> ObjectReader::string(std::string_view key, size_t max_length) {
  auto v = required(key);
  if (!v) return Unexpected(v.error());
  if (!(*v)->is_string()) {
    return control_error(ErrorCode::kEinval, std::string("must be a string, not ") + type_name(**v),
                         field_path(path_, key));
  }
  const auto& s = (*v)->get_ref<const std::string&>();
  if (s.size() > max_length) {
    return control_error(ErrorCode::kEinval, "longer than " + std::to_string(max_length) + " bytes",
                         field_path(path_, key));
  }
  return s;
}

Result<std::optional<std::string>> ObjectReader::optional_string(std::string_view key,
                                                                 size_t max_length) {
  if (!has(key)) return std::optional<std::string>{};
  auto s = string(key, max_length);
  if (!s) return Unexpected(s.error());
  return std::optional<std::string>(std::move(*s));
}

Result<const nlohmann::json*> ObjectReader::object(std::string_view key) {
  auto v = required(key);
  if (!v) return v;
  if (!(*v)->is_object()) {
    return control_error(ErrorCode::kEinval,
                         std::string("must be an object, not ") + type_name(**v),
                         field_path(path_, key));
  }
  return v;
}

Result<const nlohmann::json*> ObjectReader::array(std::string_view key, size_t max_items) {
  auto v = required(key);
  if (!v) return v;
  if (!(*v)->is_array()) {
    return control_error(ErrorCode::kEinval, std::string("must be an array, not ") + type_name(**v),
                         field_path(path_, key));
  }
  if ((*v)->size() > max_items) {
    return control_error(ErrorCode::kEinval, "more than " + std::to_string(max_items) + " entries",
                         field_path(path_, key));
  }
  return v;
}

Result<void> ObjectReader::finish() const {
  if (!object_.is_object()) return control_error(ErrorCode::kEinval, "must be an object", path_);
  for (const auto& [key, value] : object_.items()) {
    if (!read_.contains(key)) {
      return control_error(ErrorCode::kEinval, "unknown field", field_path(path_, key));
    }
  }
  return {};
}

}  // namespace mr::agent
