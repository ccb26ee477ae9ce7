// File: ordered_runs.h
//
// Independent runs on a few threads, their results handed back in order: what lets
// `--jobs N` run tests at once while every report stays that of a serial run.
//
//   run_in_order(tests.size(), 3, [&](size_t i) { return run_test(i); },
//                [&](size_t i, report::TestResult r) { results.push_back(std::move(r)); },
//                [&] { return interrupted.load(); });
#pragma once

#include <cstddef>
#include <functional>

#include "harness/report/results.h"

namespace mr::engine {

using RunFunction = std::function<report::TestResult(size_t index)>;
using DeliverFunction = std::function<void(size_t index, report::TestResult result)>;

// Runs `run(0)` .. `run(count - 1)` on up to `workers` threads (on the calling thread alone
// when `workers` is 1) and calls `deliver` on the calling thread, in index order, for each
// run as soon as it and every run before it finished. `stop` is checked before each run
// starts, from any thread: once it says true no further run starts, runs under way finish
// and are delivered, and runs never started are skipped. An exception escaping `run` is
// delivered as an error verdict naming it. Returns false when `stop` ended the runs early.
bool run_in_order(size_t count, int workers, const RunFunction& run, const DeliverFunction& deliver,
                  const std::function<bool()>& stop);

}  // namespace mr::engine
