// File: wide_integer.h
//
// A 64-bit value on the DUT control protocol (docs/dut-control-protocol.md, "Numbers"). A
// value that a double holds exactly (at most 2^53 - 1) goes as a JSON integer; a larger one
// goes as its decimal string, because parsers that read numbers as doubles (JavaScript, jq)
// round it silently. Both sides read either form.
//
//   reply["wr_id"] = wide_integer(c.wr_id);   // 7 -> 7, 2^64 - 1 -> "18446744073709551615"
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace mr::protocol {

inline constexpr uint64_t kMaxExactJsonInteger = (uint64_t{1} << 53) - 1;

inline nlohmann::json wide_integer(uint64_t value) {
  if (value <= kMaxExactJsonInteger) return value;
  return std::to_string(value);
}

}  // namespace mr::protocol
