// File: merge_command.h
//
// `metaroce merge DIR... --out DIR`: the run directories of every shard of one run
// (`run --shard I/N`) joined into one, with the reports an unsharded run would have written
// (harness/report/shard_merge.h says what must agree and what may differ) and every shard's
// captures. Exit codes as `run`'s for the merged verdicts; 2 when the shards do not make one
// run.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_merge(CLI::App& app);

}  // namespace mr::cli
