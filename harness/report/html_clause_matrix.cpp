// File: html_clause_matrix.cpp
//
// The clause matrix of index.html: every clause of the catalog, MUST clauses first, with
// its test purposes and their verdicts. Uncovered clauses are highlighted (mandatory ones
// in red); clauses a test cites that the catalog lacks are listed last.
#include "harness/report/coverage.h"
#include "harness/report/escape.h"
#include "harness/report/html_parts.h"

namespace mr::report::html {

void append_clause_matrix(std::string& out, const RunResult& run) {
  const std::vector<ClauseCoverage> coverage = clause_coverage(run);
  int covered = 0, uncovered_mandatory = 0;
  for (const ClauseCoverage& c : coverage) {
    if (c.covered()) ++covered;
    if (!c.covered() && c.mandatory()) ++uncovered_mandatory;
  }
  out += "<section id=\"clauses\"><h2>Clause matrix</h2>\n<p>" + std::to_string(coverage.size()) +
         " clauses, " + std::to_string(covered) + " covered by at least one test purpose, " +
         std::to_string(coverage.size() - static_cast<size_t>(covered)) + " uncovered (" +
         std::to_string(uncovered_mandatory) + " MUST or MUST-IF).</p>\n";
  out +=
      "<table class=\"matrix\"><thead><tr><th>Clause</th><th>Level</th><th>Statement</th>"
      "<th>Test purposes</th><th>Verdict</th></tr></thead><tbody>\n";
  for (const ClauseCoverage& c : coverage) {
    std::string cls = c.covered() ? "covered" : "uncovered";
    if (c.mandatory()) cls += " mandatory";
    if (!c.in_catalog) cls += " unknown";
    out += "<tr id=\"" + clause_anchor(c.id) + "\" class=\"" + cls + "\"><td class=\"mono\">" +
           text_escape(c.id) + "</td><td>" + text_escape(c.in_catalog ? c.level : "?") +
           "</td><td class=\"statement\">" +
           (c.in_catalog ? text_escape(c.statement)
                         : std::string("<em>not in the clause catalog</em>")) +
           "</td><td>";
    if (!c.covered()) out += "<strong>uncovered</strong>";
    for (const TestResult* t : c.tests) {
      out += "<a class=\"tp\" href=\"#" + test_anchor(t->tp_id) + "\">" + text_escape(t->tp_id) +
             " " + verdict_badge(t->verdict) + "</a>";
    }
    out += "</td><td>" + (c.covered() ? verdict_badge(c.verdict) : std::string()) + "</td></tr>\n";
  }
  out += "</tbody></table></section>\n";
}

}  // namespace mr::report::html
