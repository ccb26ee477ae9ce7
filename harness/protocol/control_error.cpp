#include "harness/protocol/control_error.h"

#include <array>

namespace mr::protocol {
namespace {

constexpr std::array<std::string_view, 8> kNames{"EINVAL", "ENOENT",    "EBUSY",  "EPERM",
                                                 "ENOSPC", "ETIMEDOUT", "EPROTO", "ENOTSUP"};

}  // namespace

std::string_view to_string(ErrorCode code) { return kNames[static_cast<size_t>(code)]; }

std::optional<ErrorCode> error_code_from_string(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<ErrorCode>(i);
  }
  return std::nullopt;
}

std::string ControlError::to_string() const {
  std::string s(protocol::to_string(code));
  if (!field.empty()) s += " " + field;
  return s + ": " + message;
}

}  // namespace mr::protocol
