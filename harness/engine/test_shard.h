// File: test_shard.h
//
// One shard's share of a run's selected tests (`run --shard I/N`): every test in exactly one
// shard, the same share for the same inputs on any machine, so N machines (or N Bazel test
// shards, or N Slurm tasks) run a suite between them and `merge` joins their reports.
//
// By count, tests go round robin in suite order (test k to shard k mod N + 1), which spreads
// each area over the shards. With the durations of a previous run, longest first onto the
// least loaded shard (LPT; ties to the earlier test and the lower shard), which keeps the
// slowest shard within 4/3 of the best split; a test the previous run did not have counts as
// the mean of those it had.
//
//   auto shard = parse_shard("2/4");             // shard 2 of 4, 1-based as the CLI says it
//   auto mine = shard_members(tp_ids, *shard, {});  // indices into tp_ids, in suite order
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"

namespace mr::engine {

struct ShardSpec {
  int index = 1;  // 1 to total
  int total = 1;
};

// "I/N" with 1 <= I <= N <= 10,000; errors name the option and what is wrong.
Expected<ShardSpec, std::string> parse_shard(std::string_view text);

// Bazel's sharding protocol: TEST_TOTAL_SHARDS and the 0-based TEST_SHARD_INDEX, given as
// their values (null when unset). None when TEST_TOTAL_SHARDS is unset; an index without a
// total, or a value that is not a number in range, is an error naming the variable.
Expected<std::optional<ShardSpec>, std::string> shard_from_bazel(const char* total,
                                                                 const char* index);

// The indices (into `tests`, ascending) of the tests of `shard`; `durations` (tp id ->
// seconds) chooses LPT over round robin when not empty.
std::vector<size_t> shard_members(const std::vector<std::string>& tests, ShardSpec shard,
                                  const std::map<std::string, double>& durations);

}  // namespace mr::engine
