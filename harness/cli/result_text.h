// File: result_text.h
//
// What `metaroce run` prints for one test as it finishes: the verdict, tp id and file, then
// for each of its first failures the script's file:line, field, expected and actual values,
// the message and the spec clauses the failure is against (with their short titles from the
// clause catalog), or the reason of a verdict without failures, and the verdicts of a flaky
// test's repetitions.
//
//   FAIL   RC-PSN-004             testcases/base/psn/RC-PSN-004.mrt
//            testcases/base/psn/RC-PSN-004.mrt:12: packet: expected none, actual ... (the DUT
//            sent a packet where none was expected) (clauses MR-PS-04: ...; MR-PS-05: ...)
#pragma once

#include <string>

#include "harness/report/results.h"
#include "harness/spec/clause_catalog.h"

namespace mr::cli {

// The lines, each ending in a line feed. `catalog` gives the clauses' titles; a clause it
// lacks (an empty catalog included) is shown by its id alone.
std::string result_text(const report::TestResult& r, const spec::ClauseCatalog& catalog);

}  // namespace mr::cli
