// File: agent_command.h
//
// `metaroce agent --backend reference --listen HOST:PORT [--iface IF] [--ip A] [--mac M]
//  [--token T | --token-file F] [--seed N] [--mutant NAME ...]`: the DUT agent, serving the
// DUT control protocol (docs/dut-control-protocol.md) until SIGINT or SIGTERM.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_agent(CLI::App& app);

}  // namespace mr::cli
