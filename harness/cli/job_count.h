// File: job_count.h
//
// `--jobs N` for the commands that run tests at once on the embedded reference (run,
// mutants): 1 to 256, or 0 for one per core this process may run on.
#pragma once

#include <string>

#include "reference/error/expected.h"

namespace mr::cli {

// The number of tests to run at once, or why `requested` cannot be one.
Expected<int, std::string> job_count(int requested);

}  // namespace mr::cli
