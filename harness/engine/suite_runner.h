// File: suite_runner.h
//
// A whole run: finds the test cases, parses them (a file that does not parse is an error
// verdict naming file:line:column), runs each against the DUT with the profile's PICS,
// reruns a test whose capture lost packets (bounded), and gathers the RunResult that the
// report writers render.
//
// With a PortFactory (the embedded reference) every run of a test gets a DUT of its own,
// so up to `jobs` tests run at once and the results do not depend on how many: they are
// collected in the suite's order, and each DUT starts from the same state and clock.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/dut_port.h"
#include "harness/engine/pixit.h"
#include "harness/engine/test_shard.h"
#include "harness/protocol/dut_messages.h"
#include "harness/report/results.h"
#include "reference/error/expected.h"

namespace mr::engine {

// Where a run stands, for a progress line.
struct SuiteProgress {
  size_t done = 0;                        // runs finished (a test repeated N times counts N)
  size_t total = 0;                       // runs selected
  std::map<report::Verdict, int> counts;  // verdicts of the finished runs
  std::string current;                    // tp id of the next run in order, "" at the end
};

struct SuiteOptions {
  // Test case files and folders (searched for .mrt files); the whole suite by default.
  std::vector<std::string> test_paths = {"testcases"};
  std::string catalog_path = "docs/spec/clauses.json";
  std::string pics_path;   // testcases/profiles/<profile>.pics.json
  std::string pixit_path;  // testcases/pixit/<name>.pixit.json
  std::string filter;      // globs on the tp id or the path, comma-separated; "" runs all
  std::string out_dir;     // captures go to <out_dir>/captures/
  // False: a test that passes keeps no capture (`metaroce mutants`, where only a kill's
  // exchange is worth reading and every mutant reruns the suite's long streams).
  bool keep_passing_captures = true;
  uint64_t seed = 1;
  int max_attempts = 3;  // reruns of an inconclusive (capture loss) test
  int jobs = 1;          // tests at once (PortFactory only); at least 1
  int repeat = 1;        // runs of each selected test, each on a fresh DUT state
  // Only this shard's share of the selected tests (test_shard.h); none: all of them.
  std::optional<ShardSpec> shard;
  // tp id -> seconds in a previous run: the shards are balanced by them (empty: by count),
  // and `shard_balance` says so in the report ("durations of reports/x/report.json").
  std::map<std::string, double> shard_durations;
  std::string shard_balance;
  // One call per test, in the suite's order, on the calling thread, once all of its
  // repetitions ran.
  std::function<void(const report::TestResult&)> on_result;
  // One call before the first run and one after each run, in order, on the calling thread.
  std::function<void(const SuiteProgress&)> on_progress;
  // Checked before each run starts, from any thread: true stops the run (Ctrl-C); runs
  // already going finish, and the run returns what it has.
  std::function<bool()> cancelled;
  // With a PortFactory: one call after each run of a test, on the thread that ran it, with
  // the DUT it ran on, before that DUT is dropped (what the DUT noted: `metaroce mutants`).
  std::function<void(const std::string& tp_id, DutPort& port)> on_run_done;
};

// A DUT of its own for one run of one test, seeded with the run's seed.
using PortFactory = std::function<Expected<std::unique_ptr<DutPort>, std::string>(uint64_t seed)>;

// The seed of repetition `index` (0-based): `seed` itself for the first, so a run without
// --repeat is unchanged; a splitmix64 mix of (seed, index) after it. `--seed` with that
// value and `--filter` on the test replays the repetition alone.
uint64_t repetition_seed(uint64_t seed, int index);

// A filter is a comma-separated list of globs (or substrings of the path); a test is
// selected when any of them matches its tp id or its path. "" selects everything.
bool filter_selects(const std::string& filter, const std::string& path, const std::string& tp);

// The test cases that `paths` name, sorted and each once: a .mrt file itself, a folder's
// .mrt files (recursively). A path that does not exist, a file that is not a .mrt test case
// and a folder without one are errors naming the path.
Expected<std::vector<std::string>, std::string> find_test_cases(
    const std::vector<std::string>& paths);

// The Part II features (ext.*) the profile claims and the DUT's capabilities do not, set to
// false and returned: a verbs device under `--profile metaroce-full` (rxe has no Part II)
// gets not-applicable for them, never fail. A DUT without an MXCAP block claims none; one
// that lists no PICS keys keeps the profile's. Part I claims stay the profile's (whether a
// bed carries IPv6 or VLANs is the bed's as much as the device's).
std::vector<std::string> withdraw_part2_claims(std::map<std::string, bool>& features,
                                               const protocol::Capabilities& caps);

// Reads a PICS file's feature map; errors name the file and field.
Expected<std::map<std::string, bool>, std::string> load_pics(const std::string& path);

// Every test on one port, one after the other (a remote DUT); `options.jobs` must be 1.
Expected<report::RunResult, std::string> run_suite(DutPort& port, const Pixit& pixit,
                                                   const SuiteOptions& options);

// Every run of every test on a port of its own from `fresh_port`, up to `options.jobs` at
// once; the result does not depend on `jobs`.
Expected<report::RunResult, std::string> run_suite(const PortFactory& fresh_port,
                                                   const Pixit& pixit, const SuiteOptions& options);

}  // namespace mr::engine
