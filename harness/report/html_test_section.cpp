// File: html_test_section.cpp
//
// One test of index.html: verdict badge, tp id, purpose, metadata (file, area, group, PICS,
// clauses, duration, attempts, capture link), the reason for a non-pass verdict, the failures
// with expected vs actual, the clauses each is against and both packets decoded, and the
// ladder of the exchange.
#include "harness/report/coverage.h"
#include "harness/report/escape.h"
#include "harness/report/format.h"
#include "harness/report/html_parts.h"

namespace mr::report::html {
namespace {

void append_row(std::string& out, std::string_view term, const std::string& html_value) {
  out += "<dt>" + std::string(term) + "</dt><dd>" + html_value + "</dd>";
}

// Each clause a failure is against, linked to its row of the clause matrix, with its short
// title (the whole statement on hover).
std::string clause_cell(const Failure& f, const spec::ClauseCatalog& catalog) {
  std::string out;
  for (const std::string& id : f.clauses) {
    const spec::Clause* c = catalog.find(id);
    out += "<span class=\"clause\"><a class=\"mono\" href=\"#" + clause_anchor(id) + "\"" +
           (c != nullptr ? " title=\"" + attr_escape(c->statement) + "\"" : "") + ">" +
           text_escape(id) + "</a>" +
           (c != nullptr ? " " + text_escape(short_title(c->statement)) : "") + "</span>";
  }
  return out;
}

void append_failures(std::string& out, const TestResult& t, const spec::ClauseCatalog& catalog) {
  if (t.failures.empty()) return;
  out +=
      "<table class=\"failures\"><thead><tr><th>Where</th><th>Field</th><th>Expected</th>"
      "<th>Actual</th><th>Message</th><th>Clauses</th></tr></thead><tbody>\n";
  for (const Failure& f : t.failures) {
    out += "<tr><td class=\"mono\">" + text_escape(f.file + ":" + std::to_string(f.line)) +
           "</td><td class=\"mono\">" + text_escape(f.field) + "</td><td class=\"v\">" +
           text_escape(f.expected) + "</td><td class=\"v\">" + text_escape(f.actual) + "</td><td>" +
           text_escape(f.message) + "</td><td class=\"clauses\">" + clause_cell(f, catalog) +
           "</td></tr>\n";
  }
  out += "</tbody></table>\n";
  for (const Failure& f : t.failures) append_packet_diff(out, f);
}

}  // namespace

void append_test_section(std::string& out, const TestResult& t,
                         const spec::ClauseCatalog& catalog) {
  out += "<section class=\"test " + verdict_class(t.verdict) + "\" id=\"" + test_anchor(t.tp_id) +
         "\">\n<h3>" + verdict_badge(t.verdict) + " " + text_escape(t.tp_id) + "</h3>\n";
  if (!t.purpose.empty()) out += "<p class=\"purpose\">" + text_escape(t.purpose) + "</p>\n";
  out += "<dl>";
  append_row(out, "File", "<span class=\"mono\">" + text_escape(t.file) + "</span>");
  append_row(out, "Area", text_escape(area_of(t.file)));
  if (!t.group.empty()) append_row(out, "Group", text_escape(t.group));
  if (!t.pics.empty())
    append_row(out, "PICS", "<span class=\"mono\">" + text_escape(t.pics) + "</span>");
  std::string clauses;
  for (const std::string& c : t.clauses) {
    clauses += "<a class=\"mono\" href=\"#" + clause_anchor(c) + "\">" + text_escape(c) + "</a> ";
  }
  append_row(out, "Clauses", clauses.empty() ? "none" : clauses);
  append_row(out, "Duration", format_seconds(t.duration_s) + " s");
  if (t.attempts != 1) {
    append_row(out, "Attempts", std::to_string(t.attempts) + " (capture loss forced a rerun)");
  }
  if (!t.capture.empty()) {
    // "./" keeps the link relative to the run directory whatever the path says
    // ("javascript:..." included).
    append_row(out, "Capture",
               "<a href=\"./" + attr_escape(t.capture) + "\">" + text_escape(t.capture) + "</a>");
  }
  if (!t.reason.empty()) append_row(out, "Reason", text_escape(t.reason));
  if (t.repetitions.size() > 1) {
    // --repeat: every repetition's verdict and seed (to replay it with --seed).
    std::string runs = t.flaky() ? "<strong>flaky</strong>: " : "";
    for (size_t i = 0; i < t.repetitions.size(); ++i) {
      const Repetition& r = t.repetitions[i];
      runs += "<span class=\"rep\" title=\"seed " + std::to_string(r.seed) + "\">" +
              std::to_string(i + 1) + " " + verdict_badge(r.verdict) + "</span> ";
    }
    append_row(out, "Repetitions", runs);
  }
  out += "</dl>\n";
  append_failures(out, t, catalog);
  append_ladder(out, t);
  append_paths(out, t);
  out += "</section>\n";
}

}  // namespace mr::report::html
