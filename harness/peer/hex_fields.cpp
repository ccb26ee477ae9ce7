#include "harness/peer/hex_fields.h"

namespace mr::peer {

std::string_view until_nul(std::string_view bytes) {
  const size_t nul = bytes.find('\0');
  return nul == std::string_view::npos ? bytes : bytes.substr(0, nul);
}

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t colon = text.find(':', start);
    if (colon == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
}

Expected<uint64_t, std::string> parse_hex_field(std::string_view message, std::string_view field,
                                                std::string_view text, size_t max_digits,
                                                uint64_t max_value) {
  const auto fail = [&](const std::string& what) {
    return Unexpected(std::string(message) + ": field " + std::string(field) + ": \"" +
                      std::string(text) + "\" " + what);
  };
  if (text.empty()) return fail("is empty");
  if (text.size() > max_digits) {
    return fail("has more than " + std::to_string(max_digits) + " hex digits");
  }
  uint64_t value = 0;
  for (const char c : text) {
    uint64_t digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint64_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint64_t>(c - 'a') + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<uint64_t>(c - 'A') + 10;
    } else {
      return fail("is not hexadecimal");
    }
    value = (value << 4) | digit;
  }
  if (value > max_value) return fail("exceeds its maximum " + std::to_string(max_value));
  return value;
}

}  // namespace mr::peer
