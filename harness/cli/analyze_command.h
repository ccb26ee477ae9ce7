// File: analyze_command.h
//
// `metaroce analyze FILE [--json]`: the clause violations a capture shows, found passively
// (harness/analyze, docs/analyze.md). Exit 0 when the DUT side shows none, 1 when it shows
// some, 2 when the file cannot be read to its end (the analysis before the damage prints).
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_analyze(CLI::App& app);

}  // namespace mr::cli
