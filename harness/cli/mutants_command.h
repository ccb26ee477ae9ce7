// File: mutants_command.h
//
// `metaroce mutants`: runs the suite against every mutated reference and reports which test
// purposes killed which mutant, the kill rate, and the test purposes that kill nothing.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_mutants(CLI::App& app);

}  // namespace mr::cli
