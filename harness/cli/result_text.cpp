#include "harness/cli/result_text.h"

#include "harness/report/format.h"

namespace mr::cli {
namespace {

// At most this many failures of a test on the console; the reports have every one.
constexpr int kFailuresShown = 5;
// The tp id column, so that the files line up.
constexpr size_t kTpIdWidth = 22;

const char* badge(report::Verdict v) {
  switch (v) {
    case report::Verdict::kPass:
      return "PASS  ";
    case report::Verdict::kFail:
      return "FAIL  ";
    case report::Verdict::kInconc:
      return "INCONC";
    case report::Verdict::kError:
      return "ERROR ";
    case report::Verdict::kNotApplicable:
      return "N/A   ";
    default:
      return "NONE  ";
  }
}

}  // namespace

std::string result_text(const report::TestResult& r, const spec::ClauseCatalog& catalog) {
  std::string id = r.tp_id;
  if (id.size() < kTpIdWidth) id.resize(kTpIdWidth, ' ');
  std::string out = std::string(badge(r.verdict)) + " " + id + " " + r.file + "\n";
  int shown = 0;
  for (const auto& f : r.failures) {
    if (++shown > kFailuresShown) break;
    out += "         " + f.file + ":" + std::to_string(f.line) + ": ";
    if (f.field.empty() || f.field == "script") {
      out += f.message;
    } else {
      out += f.field + ": expected " + f.expected + ", actual " + f.actual + " (" + f.message + ")";
    }
    if (!f.clauses.empty()) out += " (" + report::clause_note(f.clauses, catalog) + ")";
    out += "\n";
  }
  if (r.failures.empty() && !r.reason.empty() && r.verdict != report::Verdict::kNotApplicable) {
    out += "         " + r.reason + "\n";
  }
  if (r.flaky()) {
    std::string runs;
    for (const auto& rep : r.repetitions) {
      runs += (runs.empty() ? "" : ", ") + std::string(report::to_string(rep.verdict)) + " (seed " +
              std::to_string(rep.seed) + ")";
    }
    out += "         flaky: " + runs + "\n";
  }
  return out;
}

}  // namespace mr::cli
