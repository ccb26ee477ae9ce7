// File: did_you_mean.h
//
// The nearest known name to a typo, for error messages ("unknown argument 'lne' (did you
// mean 'len'?)"), as compilers and git suggest them.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace mr::script {

// " (did you mean 'len'?)" for a word at most two edits from one of `known`, else "".
std::string did_you_mean(std::string_view word, std::span<const std::string_view> known);

// "a, b, c": the names as an error message lists them.
std::string joined(std::span<const std::string_view> names);

}  // namespace mr::script
