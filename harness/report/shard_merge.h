// File: shard_merge.h
//
// The shards of one run (`run --shard I/N`, each a run directory) joined into the run they
// split: its tests in suite order, its inputs, its reports, as an unsharded run would have
// written them but for timings (started_at is the earliest shard's, duration_s the longest
// shard's: shards run side by side) and the shard list (RunResult::merged_from, manifest only).
//
// Shards of different runs are refused, naming the member and both shards: every shard must
// have the same harness version and commit, DUT (the device; its station's MAC, IPs and GIDs
// may differ, as on several test stations of one device model, and the merged run keeps the
// first shard's, each shard's in merged_from), profile, PICS, PIXIT, seed, repeat, mutants,
// options, input digests (the suite's files, the catalog, PICS and PIXIT files) and catalog,
// the same split (total, balance, selected tests), each index once, every index present, no
// shard interrupted, and together exactly the selected tests.
#pragma once

#include <string>
#include <vector>

#include "harness/report/results.h"
#include "reference/error/expected.h"

namespace mr::report {

struct ShardRun {
  std::string directory;  // as given, for messages and merged_from
  std::string manifest_sha256;
  RunResult run;
};

Expected<RunResult, std::string> merge_shards(std::vector<ShardRun> shards);

}  // namespace mr::report
