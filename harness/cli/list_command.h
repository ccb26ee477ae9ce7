// File: list_command.h
//
// `metaroce list [--profile NAME] [--json]`: every clause of the catalog with the test
// purposes that verify it, and the clauses that no test covers.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_list(CLI::App& app);

}  // namespace mr::cli
