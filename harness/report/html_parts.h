// File: html_parts.h
//
// The pieces index.html is made of, one per file. Each appends escaped, well-formed HTML to
// `out`; render_index_html (html_page_writer.cpp) puts them together.
#pragma once

#include <string>
#include <string_view>

#include "harness/report/results.h"

namespace mr::report::html {

// The inline stylesheet (no external resources: the page works offline).
std::string_view stylesheet();

// <span class="badge v-fail">fail</span>
std::string verdict_badge(Verdict v);
// "v-pass", "v-not-applicable": the CSS class of a verdict.
std::string verdict_class(Verdict v);
// The id of a test's section and of a clause's matrix row.
std::string test_anchor(std::string_view tp_id);
std::string clause_anchor(std::string_view clause_id);

// Every clause of the catalog: id, level, statement, its tests and their verdicts.
void append_clause_matrix(std::string& out, const RunResult& run);

// One test: badge, purpose, metadata, failures (with the titles of their clauses from
// `catalog`), ladder.
void append_test_section(std::string& out, const TestResult& t, const spec::ClauseCatalog& catalog);

// The exchange as a ladder: tester on the left, DUT on the right, one row per packet.
void append_ladder(std::string& out, const TestResult& t);

// The Ext packets of the exchange by sender, plane and EV: sent, retransmitted, dropped by the
// harness (nothing without Ext packets).
void append_paths(std::string& out, const TestResult& t);

// Expected vs actual, field by field, differing fields highlighted.
void append_packet_diff(std::string& out, const Failure& f);

}  // namespace mr::report::html
