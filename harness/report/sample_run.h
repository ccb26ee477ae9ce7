// File: sample_run.h
//
// A small synthetic RunResult for the writer tests: five tests, one of each of pass, fail
// (two failures with their clauses, both packets decoded), inconc, error and not-applicable, over a
// catalog of four clauses of which one MUST clause is uncovered.
#pragma once

#include <string>

#include "harness/report/results.h"

namespace mr::report::testing {

RunResult sample_run();

// The same run with `hostile` in every string a test can influence: file names, purposes,
// summaries, field names, expected and actual values, clauses, reasons, DUT identity,
// mutants and options.
RunResult hostile_run(const std::string& hostile);

}  // namespace mr::report::testing
