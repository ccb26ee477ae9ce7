// File: wide_integer.h
//
// A 64-bit value in the project's JSON: the DUT control protocol (docs/dut-control-protocol.md,
// "Numbers") and `decode --json` (docs/decode-json.md: RETH.va, AtomicETH.swap). A value that
// a double holds exactly (at most 2^53 - 1) goes as a JSON integer; a larger one goes as its
// decimal string, because parsers that read numbers as doubles (JavaScript, jq) round it
// silently. Readers take either form.
//
//   reply["wr_id"] = wide_integer(c.wr_id);   // 7 -> 7, 2^64 - 1 -> "18446744073709551615"
//   auto v = parse_integer_text("0x1f");      // 31; every integer string either side reads
#pragma once

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <system_error>

#include "reference/error/expected.h"

namespace mr::wire {

// A double's mantissa: every integer of at most this many bits is exact in any JSON parser.
inline constexpr unsigned kExactJsonIntegerBits = 53;
inline constexpr uint64_t kMaxExactJsonInteger = (uint64_t{1} << kExactJsonIntegerBits) - 1;

inline nlohmann::json wide_integer(uint64_t value) {
  if (value <= kMaxExactJsonInteger) return value;
  return std::to_string(value);
}

enum class IntegerTextError : uint8_t { kNotDigits, kTooLarge };

// An integer given as a string: decimal ("31") or 0x-prefixed hex ("0x1f"), all of it digits,
// at most 20 of them.
inline Expected<uint64_t, IntegerTextError> parse_integer_text(std::string_view text) {
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  if (text.empty() || text.size() > 20) return Unexpected(IntegerTextError::kNotDigits);
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n, base);
  if (ec == std::errc::result_out_of_range) return Unexpected(IntegerTextError::kTooLarge);
  if (ec != std::errc{} || end != text.data() + text.size())
    return Unexpected(IntegerTextError::kNotDigits);
  return n;
}

}  // namespace mr::wire
