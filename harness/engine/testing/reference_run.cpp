#include "harness/engine/testing/reference_run.h"

#include <gtest/gtest.h>

#include <utility>

#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/test_runner.h"
#include "harness/script/parser.h"

namespace mr::engine::testing {

report::TestResult run_on_reference(const std::string& body, ReferenceRun run) {
  auto parsed = script::parse_script(std::string(run.header) + body, "t.mrt");
  EXPECT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string();
  auto px = Pixit::load("testcases/pixit/default.pixit.json");
  EXPECT_TRUE(px) << px.error();
  dut::EmbeddedReferencePort port(*px, {.seed = run.seed, .mutants = std::move(run.mutants)});
  TestOptions options;
  options.seed = run.seed;
  options.pics = std::move(run.pics);
  options.clause_levels = std::move(run.clause_levels);
  options.capture_path = std::move(run.capture_path);
  return run_test(parsed.script, port, *px, options);
}

std::string failures_text(const report::TestResult& r) {
  std::string s = r.reason;
  for (const auto& f : r.failures)
    s += "\n" + std::to_string(f.line) + " " + f.field + " expected " + f.expected + " actual " +
         f.actual + ": " + f.message;
  return s;
}

}  // namespace mr::engine::testing
