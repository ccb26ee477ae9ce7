// File: suite_check.h
//
// What a test case's header claims, checked against the rest of the project before any
// test runs: its tp id is the only one of its kind in the suite, its clauses are in the
// catalog, its PICS predicate names features the catalog defines, its group is BV, BI or
// BO, and the mutants its `kills:` line names exist. A problem is a diagnostic at the
// header's file:line:column with a did-you-mean, added to that test's parse result: the test
// becomes an error verdict and never reaches the DUT.
#pragma once

#include <span>

#include "harness/script/parser.h"
#include "harness/spec/clause_catalog.h"

namespace mr::engine {

// Appends the diagnostics of every test case of `suite` (the whole suite, so that a
// duplicate tp id is found whichever of its files a filter selects) to its own result.
void check_suite(std::span<script::ParseResult> suite, const spec::ClauseCatalog& catalog);

}  // namespace mr::engine
