// File: run_command.h
//
// `metaroce run`: the suite against a DUT (default: the embedded reference over the
// in-memory link), reports into a run directory. Exit 0 when no applicable test failed,
// 1 when one did, 2 for a harness error.
#pragma once

#include <string>
#include <vector>

#include "harness/cli/command.h"
#include "harness/report/results.h"

namespace mr::cli {

struct RunOptions {
  std::string dut = "reference";
  std::string profile;
  std::string pixit;
  std::string testcases = "testcases";  // where the .mrt files are (the repository's)
  std::vector<std::string> paths;       // test case files or folders given instead
  std::string filter;
  std::string link = "memory";
  std::string out = "reports/latest";  // in the repository unless given
  std::string seed = "1";
  std::vector<std::string> mutants;
  std::string iface;
  std::string token;
  std::string token_file;
  std::string rxe_backend = "verbs";
  bool quiet = false;
  int jobs = 1;              // tests at once (embedded reference only); 0: one per core
  int repeat = 1;            // runs of each test purpose, each on a fresh DUT
  bool no_progress = false;  // no live line on a terminal
  // "inconc": an inconclusive test fails the run (exit 1) as a failed one does, so a CI job
  // whose every test could not be judged is not green.
  std::string fail_on;
  // "I/N": only shard I's share of the selected tests (harness/engine/test_shard.h); "" runs
  // them all, or Bazel's shard when TEST_TOTAL_SHARDS is set (setup_run reads it).
  std::string shard;
  // A previous run's report.json: shards balanced by its test durations instead of by count.
  std::string balance_from;
};

Runner setup_run(CLI::App& app);

// The options that choose and reach the DUT (--dut --profile --pixit --iface --token
// --token-file --rxe-backend --seed --mutant), for every command that drives one (run,
// replay). Returns the --dut option, for a command that must know whether it was given.
CLI::Option* add_dut_options(CLI::App& app, RunOptions& o);

// A run as `metaroce run` does it with these options (replay runs its generated test
// case through it). Returns the exit code.
int run_with(const RunOptions& options);

// The closing lines of a run (counts, flaky tests, where the report is), and its exit code:
// 2 when interrupted or a test is in error, 1 when one failed (or, with fail_on "inconc", is
// inconclusive), else 0. `merge` ends the same way.
void print_summary(const report::RunResult& result, const std::string& out);
int exit_code(const report::RunResult& result, const std::string& fail_on);

}  // namespace mr::cli
