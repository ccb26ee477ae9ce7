// File: pics_predicate.h
//
// A test's `# pics:` predicate (feature keys with and, or, not, parentheses) evaluated
// against the features a PICS file claims. An unknown key is an error, not "false".
#pragma once

#include <map>
#include <string>

#include "reference/error/expected.h"

namespace mr::engine {

Expected<bool, std::string> evaluate_pics(const std::string& predicate,
                                          const std::map<std::string, bool>& features);

}  // namespace mr::engine
