#include "reference/memory/access.h"

#include <array>
#include <charconv>

namespace mr::memory {

std::string_view to_string(AccessError error) {
  switch (error) {
    case AccessError::kInvalidKey:
      return "invalid key";
    case AccessError::kWrongPd:
      return "wrong protection domain";
    case AccessError::kNotPermitted:
      return "access not permitted";
    case AccessError::kOutOfRange:
      return "out of range";
    case AccessError::kInvalidated:
      return "invalidated";
    case AccessError::kMisaligned:
      return "misaligned";
  }
  return "unknown access error";
}

std::optional<std::string> check_mr_access(uint32_t access) {
  if ((access & ~kAllAccess) != 0) {
    std::array<char, 8> hex{};
    auto end = std::to_chars(hex.data(), hex.data() + hex.size(), access & ~kAllAccess, 16).ptr;
    return "unknown access bits 0x" + std::string(hex.data(), end);
  }
  if ((access & (kRemoteWrite | kRemoteAtomic)) != 0 && (access & kLocalWrite) == 0) {
    return std::string("remote write or remote atomic access requires local write");
  }
  return std::nullopt;
}

}  // namespace mr::memory
