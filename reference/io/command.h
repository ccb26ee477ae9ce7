// File: command.h
//
// Runs a program (no shell, so no quoting or injection) with a time limit, and returns its
// standard output, or an error naming the command, its exit status and its standard
// error. The test topology drives `ip` through it; every call is bounded.
//
// Usage:
//   auto out = run_command({"ip", "netns", "list"});
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/error/expected.h"

namespace mr::io {

// argv[0] is looked up on PATH. The process is killed after timeout_ms.
Expected<std::string, std::string> run_command(const std::vector<std::string>& argv,
                                               uint64_t timeout_ms = 10'000);

}  // namespace mr::io
