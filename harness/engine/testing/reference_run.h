// File: reference_run.h
//
// The engine's tests run a script body against the embedded reference DUT with the default
// PIXIT; this is that set-up once, and the one way they print a result's failures.
//
//   auto r = run_on_reference(body, {.header = kHeader, .pics = {{"rc.send", true}}});
//   EXPECT_EQ(r.verdict, report::Verdict::kPass) << failures_text(r);
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/report/results.h"

namespace mr::engine::testing {

struct ReferenceRun {
  std::string_view header;  // the metadata lines the body is appended to
  std::map<std::string, bool> pics;
  std::vector<std::string> mutants;
  uint64_t seed = 5;
  std::map<std::string, std::string> clause_levels;
  std::string capture_path;
};

// Parses header + body as "t.mrt" (a parse error is a test failure) and runs it.
report::TestResult run_on_reference(const std::string& body, ReferenceRun run);

// The reason, then one line per failure: "LINE FIELD expected E actual A: MESSAGE".
std::string failures_text(const report::TestResult& r);

}  // namespace mr::engine::testing
