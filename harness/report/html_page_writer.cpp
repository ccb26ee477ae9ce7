// File: html_page_writer.cpp
//
// index.html: one self-contained page (inline CSS, no JavaScript, no external resource).
// A header with the DUT identity, profile, seed, overall verdict and counts; verdict filters
// (CSS radio buttons); the clause matrix; a table of contents; one section per test, the
// failures first (kVerdictsWorstFirst).
#include "harness/report/dut_identity.h"
#include "harness/report/escape.h"
#include "harness/report/format.h"
#include "harness/report/html_parts.h"
#include "harness/report/writer.h"

namespace mr::report {
namespace {

void append_meta_row(std::string& out, std::string_view name, const std::string& html_value) {
  out += "<tr><th>" + std::string(name) + "</th><td>" + html_value + "</td></tr>\n";
}

void append_header(std::string& out, const RunResult& run) {
  out += "<header><h1>MetaRoCE conformance run " + html::verdict_badge(run.overall()) + "</h1>\n";
  if (!run.mutants.empty()) {
    std::string names;
    for (const auto& m : run.mutants) names += (names.empty() ? "" : ", ") + m;
    out += "<p class=\"mutant-banner\">Mutated reference (" + text_escape(names) +
           "): a deliberately broken DUT, not a conformance result</p>\n";
  }
  if (run.shard) {
    out += "<p class=\"mutant-banner\">Shard " + std::to_string(run.shard->index) + " of " +
           std::to_string(run.shard->total) + ": " + std::to_string(run.tests.size()) + " of the " +
           std::to_string(run.shard->selected.size()) +
           " selected tests, a partial run (./metaroce merge joins the shards)</p>\n";
  }
  out += "<table class=\"meta\">\n";
  for (const IdentityLine& l : dut_identity(run.dut)) {
    append_meta_row(out, text_escape(l.label), text_escape(l.text));
  }
  append_meta_row(out, "Profile", text_escape(run.profile));
  append_meta_row(out, "Seed", std::to_string(run.seed));
  if (!run.options.empty()) append_meta_row(out, "Options", text_escape(plain_text(run.options)));
  append_meta_row(
      out, "Harness",
      text_escape(run.harness_version) +
          (run.harness_commit.empty() ? "" : " (" + text_escape(run.harness_commit_text()) + ")"));
  append_meta_row(out, "Started", text_escape(run.started_at));
  append_meta_row(out, "Duration", format_seconds(run.duration_s) + " s");
  std::string counts = "<span class=\"counts\">";
  for (const auto& [verdict, n] : run.counts_worst_first()) {
    counts += "<span>" + html::verdict_badge(verdict) + " " + std::to_string(n) + "</span>";
  }
  append_meta_row(out, "Tests", std::to_string(run.tests.size()) + " " + counts + "</span>");
  out += "</table></header>\n";
}

void append_filters(std::string& out) {
  const std::pair<const char*, const char*> filters[] = {
      {"f-all", "all tests"}, {"f-fail", "fail"}, {"f-error", "error"},
      {"f-inconc", "inconc"}, {"f-pass", "pass"}, {"f-na", "not-applicable"},
      {"f-none", "none"}};
  for (const auto& [id, label] : filters) {
    out += std::string("<input class=\"filter\" type=\"radio\" name=\"verdict\" id=\"") + id +
           "\"" + (std::string_view(id) == "f-all" ? " checked" : "") + ">";
  }
  out +=
      "<input class=\"filter\" type=\"checkbox\" id=\"f-uncovered\">\n<div "
      "class=\"filters\">Show: ";
  for (const auto& [id, label] : filters) {
    out += std::string("<label for=\"") + id + "\">" + label + "</label>";
  }
  out += "<label for=\"f-uncovered\">clause matrix: uncovered only</label></div>\n";
}

}  // namespace

std::string render_index_html(const RenderContext& ctx) {
  const RunResult& run = ctx.run;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>MetaRoCE report: " +
      text_escape(to_string(run.overall())) + " (" + text_escape(run.profile) +
      ")</title>\n<style>" + std::string(html::stylesheet()) + "</style></head>\n<body>\n";
  append_header(out, run);
  append_filters(out);
  out += "<main>\n";
  html::append_clause_matrix(out, run);
  out += "<section id=\"tests\"><h2>Tests (" + std::to_string(run.tests.size()) +
         ")</h2>\n<ul class=\"toc\">\n";
  const auto ordered = tests_worst_first(run.tests);  // failures first
  for (const TestResult* t : ordered) {
    out += "<li class=\"" + html::verdict_class(t->verdict) + "\"><a href=\"#" +
           html::test_anchor(t->tp_id) + "\">" + text_escape(t->tp_id) + "</a> " +
           html::verdict_badge(t->verdict) + "</li>\n";
  }
  out += "</ul>\n";
  for (const TestResult* t : ordered) html::append_test_section(out, *t, run.catalog);
  out += "</section>\n</main>\n</body></html>\n";
  return out;
}

}  // namespace mr::report
