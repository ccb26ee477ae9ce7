// File: tool_runner.h
//
// How the doctor runs dcb and ethtool: each bounded in time (reference/io/command.h), and a
// program that is not installed is an answer (kAbsent), not an error, so the report can say
// what could not be checked and how to install it. Tests pass a fake runner.
//
//   ToolRunner run = system_tool_runner();
//   ToolProbe p = probe(run, {"dcb", "pfc", "show", "dev", "eth0"});
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/doctor/host_facts.h"

namespace mr::doctor {

// argv[0] is a bare program name. Returns the probe with status kAbsent, kFailed or kOk.
using ToolRunner = std::function<ToolProbe(const std::vector<std::string>& argv)>;

// Looks argv[0] up on PATH and in the sbin directories (dcb and ethtool live in /usr/sbin,
// which a non-root PATH lacks), then runs it for at most timeout_ms.
ToolRunner system_tool_runner(uint64_t timeout_ms = 3'000);

// The full path of an installed program, or nullopt.
std::optional<std::string> find_program(const std::string& name);

// Runs argv through `runner`; kNotRun when there is no runner.
ToolProbe probe(const ToolRunner& runner, const std::vector<std::string>& argv);

}  // namespace mr::doctor
