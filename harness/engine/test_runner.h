// File: test_runner.h
//
// Runs one test case against a DUT port: applies the PICS predicate, executes the
// statements in order (inject, expect with masks and time tolerance, silence windows,
// liveness probes, DUT commands), ends with a quiet period in which no further DUT packet
// may appear, and returns the verdict with every failure and packet of the exchange.
#pragma once

#include <map>
#include <string>

#include "harness/engine/dut_port.h"
#include "harness/engine/pixit.h"
#include "harness/report/results.h"
#include "harness/script/ast.h"

namespace mr::engine {

struct TestOptions {
  uint64_t seed = 1;
  std::map<std::string, bool> pics;  // features the DUT claims
  std::string capture_path;          // per-test pcapng, "" for none
  // Clause levels from the catalog: a trace checker's violation of a SHOULD or MAY clause
  // is advisory (shown, not failed); a clause missing here counts as MUST.
  std::map<std::string, std::string> clause_levels;
  // The limits the DUT states in its capabilities, script symbols `limits.NAME`.
  std::map<std::string, uint64_t> dut_limits;
};

report::TestResult run_test(const script::Script& script, DutPort& port, const Pixit& pixit,
                            const TestOptions& options);

}  // namespace mr::engine
