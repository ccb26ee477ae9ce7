// File: coverage.h
//
// Which test purposes cover which clauses of the catalog, and the area of a test. The HTML
// clause matrix, summary.md and report.json all read the coverage from here.
//
//   for (const ClauseCoverage& c : clause_coverage(run)) {
//     if (!c.covered() && c.mandatory()) ...   // an uncovered MUST clause
//   }
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/report/results.h"

namespace mr::report {

struct ClauseCoverage {
  std::string id;
  std::string level;  // "MUST", "MUST-IF", "SHOULD", "MAY"; "" when not in the catalog
  std::string statement;
  bool in_catalog = true;                     // false: a test cites a clause the catalog lacks
  std::vector<const TestResult*> tests;       // in run order
  Verdict verdict = Verdict::kNotApplicable;  // worse() over the tests; n/a when uncovered

  bool covered() const { return !tests.empty(); }
  bool mandatory() const { return level == "MUST" || level == "MUST-IF"; }
};

// Every clause of run.catalog, then every clause the tests cite that the catalog lacks. Ordered
// MUST, MUST-IF, SHOULD, MAY, unknown, and by catalog order within a level. The pointers point into
// run.tests.
std::vector<ClauseCoverage> clause_coverage(const RunResult& run);

// The directory of a test file below testcases/: "testcases/base/psn/RC-PSN-004.mrt" gives
// "base/psn". A file with no directory gives "(top)".
std::string area_of(std::string_view file);

}  // namespace mr::report
