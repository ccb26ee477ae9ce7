// File: summary_writer.cpp
//
// summary.md: what to paste into a pull request or a ticket. The overall verdict and counts,
// each failed or erroneous test with its first failure (file:line field expected vs actual,
// the clauses it is against), the inconclusive ones with their reason, and the uncovered
// MUST clauses. Every value from the run is md_escape'd: it renders as the text it is, never
// as markup.
#include "harness/report/coverage.h"
#include "harness/report/dut_identity.h"
#include "harness/report/escape.h"
#include "harness/report/format.h"
#include "harness/report/writer.h"

namespace mr::report {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

void append_test_line(std::string& out, const TestResult& t, const spec::ClauseCatalog& catalog) {
  out += "- **" + md_escape(t.tp_id) + "** " + upper(to_string(t.verdict)) + " (" +
         md_escape(area_of(t.file)) + ")";
  if (!t.purpose.empty()) out += ": " + md_escape(t.purpose);
  out += "\n";
  if (!t.failures.empty()) {
    const Failure& f = t.failures.front();
    out += "  - " + md_escape(f.file + ":" + std::to_string(f.line)) + " " + md_escape(f.field) +
           ": expected " + md_escape(f.expected) + ", actual " + md_escape(f.actual);
    if (!f.message.empty()) out += " — " + md_escape(f.message);
    if (!f.clauses.empty()) out += " (" + md_escape(clause_note(f.clauses, catalog)) + ")";
    if (t.failures.size() > 1) {
      out += " (and " + std::to_string(t.failures.size() - 1) + " more)";
    }
    out += "\n";
  }
  if (!t.reason.empty()) out += "  - reason: " + md_escape(t.reason) + "\n";
  if (!t.capture.empty()) out += "  - capture: " + md_escape(t.capture) + "\n";
}

// Tests whose verdict changed between repetitions, each with every repetition's verdict
// and seed (`--seed S --filter TP` replays one alone).
std::string flaky_section(const RunResult& run) {
  std::string body;
  int n = 0;
  for (const TestResult& t : run.tests) {
    if (!t.flaky()) continue;
    ++n;
    body += "- **" + md_escape(t.tp_id) + "** (" + md_escape(area_of(t.file)) + "):";
    for (size_t i = 0; i < t.repetitions.size(); ++i) {
      const Repetition& r = t.repetitions[i];
      body += (i == 0 ? " " : ", ") + std::string(to_string(r.verdict)) + " (seed " +
              std::to_string(r.seed) + ")";
    }
    body += "\n";
  }
  if (n == 0) return "";
  return "\n## Flaky: the verdict changed between repetitions (" + std::to_string(n) + ")\n\n" +
         body;
}

}  // namespace

std::string render_summary_md(const RenderContext& ctx) {
  const RunResult& run = ctx.run;
  std::string out = "# MetaRoCE conformance run: " + upper(to_string(run.overall())) + "\n\n";
  if (!run.mutants.empty()) {
    out += "**Mutated reference (";
    for (size_t i = 0; i < run.mutants.size(); ++i)
      out += (i ? ", " : "") + md_escape(run.mutants[i]);
    out += "): a deliberately broken DUT, not a conformance result.**\n\n";
  }
  if (run.shard) {
    out += "**Shard " + std::to_string(run.shard->index) + " of " +
           std::to_string(run.shard->total) + ": " + std::to_string(run.tests.size()) + " of the " +
           std::to_string(run.shard->selected.size()) +
           " selected tests, a partial run (`./metaroce merge` joins the shards).**\n\n";
  }
  out += "DUT " + md_escape(dut_identity_line(run.dut)) + " · profile " + md_escape(run.profile) +
         " · seed " + std::to_string(run.seed) + " · harness " + md_escape(run.harness_version);
  if (!run.harness_commit.empty()) out += " (" + md_escape(run.harness_commit_text()) + ")";
  if (run.repeat > 1) out += " · each test run " + std::to_string(run.repeat) + " times";
  out +=
      " · started " + md_escape(run.started_at) + " · " + format_seconds(run.duration_s) + " s\n\n";

  out += "| verdict | tests |\n|---|---:|\n";
  for (const auto& [verdict, n] : run.counts_worst_first()) {
    out += "| " + std::string(to_string(verdict)) + " | " + std::to_string(n) + " |\n";
  }
  out += "| **total** | **" + std::to_string(run.tests.size()) + "** |\n";

  const struct {
    Verdict verdict;
    const char* title;
  } sections[] = {{Verdict::kFail, "Failed"},
                  {Verdict::kError, "In error (harness fault)"},
                  {Verdict::kInconc, "Inconclusive"},
                  {Verdict::kNone, "Without a verdict"}};
  for (const auto& section : sections) {
    std::string body;
    int n = 0;
    for (const TestResult& t : run.tests) {
      if (t.verdict != section.verdict) continue;
      append_test_line(body, t, run.catalog);
      ++n;
    }
    if (n > 0)
      out += "\n## " + std::string(section.title) + " (" + std::to_string(n) + ")\n\n" + body;
  }

  out += flaky_section(run);

  std::string uncovered;
  int n_uncovered = 0;
  for (const ClauseCoverage& c : clause_coverage(run)) {
    if (c.covered() || !c.mandatory()) continue;
    uncovered += "- " + md_escape(c.id) + " (" + c.level + "): " + md_escape(c.statement) + "\n";
    ++n_uncovered;
  }
  out += "\n## Uncovered MUST clauses (" + std::to_string(n_uncovered) + ")\n\n";
  out += n_uncovered == 0 ? "None: every MUST and MUST-IF clause has a test purpose.\n" : uncovered;
  return out;
}

}  // namespace mr::report
