// File: run_command.h
//
// `metaroce run`: the suite against a DUT (default: the embedded reference over the
// in-memory link), reports into a run directory. Exit 0 when no applicable test failed,
// 1 when one did, 2 for a harness error.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_run(CLI::App& app);

}  // namespace mr::cli
