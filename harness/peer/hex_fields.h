// File: hex_fields.h
//
// The colon-separated hexadecimal fields both tools' exchange messages are made of: split a
// message into its fields and read one as a number of bounded width, with an error that
// names the tool's message and the field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"

namespace mr::peer {

// The text before the first NUL (the tools' messages are C strings in fixed-size buffers).
std::string_view until_nul(std::string_view bytes);

// Splits on ':'; "a:b:" yields {"a", "b", ""}.
std::vector<std::string_view> split_fields(std::string_view text);

// A field of 1..max_digits hexadecimal digits whose value fits in max_value.
Expected<uint64_t, std::string> parse_hex_field(std::string_view message, std::string_view field,
                                                std::string_view text, size_t max_digits,
                                                uint64_t max_value);

}  // namespace mr::peer
