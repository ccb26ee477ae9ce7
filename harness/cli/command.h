// File: command.h
//
// One `metaroce` subcommand: it declares its options on a CLI11 subcommand and returns a
// runner that the main function calls when that subcommand was chosen. Subcommands are
// listed in one table in main.cpp, like testpmd's forwarding engines.
//
// Exit codes (DESIGN.md): 0 success, 1 a test or check failed, 2 a harness error
// (bad input, missing file, internal fault).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace mr::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitHarnessError = 2;

using Runner = std::function<int()>;
using CommandSetup = Runner (*)(CLI::App& app);

struct Command {
  const char* name;
  const char* summary;
  CommandSetup setup;
};

}  // namespace mr::cli
