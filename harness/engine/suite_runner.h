// File: suite_runner.h
//
// A whole run: finds the test cases, parses them (a file that does not parse is an error
// verdict naming file:line:column), runs each against the DUT with the profile's PICS,
// reruns a test whose capture lost packets (bounded), and gathers the RunResult that the
// report writers render.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/engine/dut_port.h"
#include "harness/engine/pixit.h"
#include "harness/report/results.h"
#include "reference/error/expected.h"

namespace mr::engine {

struct SuiteOptions {
  std::string testcases_dir = "testcases";
  std::string catalog_path = "docs/spec/clauses.json";
  std::string pics_path;   // testcases/profiles/<profile>.pics.json
  std::string pixit_path;  // testcases/pixit/<name>.pixit.json
  std::string filter;      // globs on the tp id or the path, comma-separated; "" runs all
  std::string out_dir;     // captures go to <out_dir>/captures/
  uint64_t seed = 1;
  int max_attempts = 3;  // reruns of an inconclusive (capture loss) test
  std::function<void(const report::TestResult&)> on_result;  // progress, one call per test
  // Checked between tests: true stops the run (Ctrl-C), which then returns what it has.
  std::function<bool()> cancelled;
};

// A filter is a comma-separated list of globs (or substrings of the path); a test is
// selected when any of them matches its tp id or its path. "" selects everything.
bool filter_selects(const std::string& filter, const std::string& path, const std::string& tp);

// Paths of every .mrt file under `dir`, sorted.
std::vector<std::string> find_test_cases(const std::string& dir);

// Reads a PICS file's feature map; errors name the file and field.
Expected<std::map<std::string, bool>, std::string> load_pics(const std::string& path);

Expected<report::RunResult, std::string> run_suite(DutPort& port, const Pixit& pixit,
                                                   const SuiteOptions& options);

}  // namespace mr::engine
