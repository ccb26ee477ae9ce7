// File: junit_writer.cpp
//
// junit.xml for CI (Jenkins, GitLab, GitHub test reporters): one <testsuite> per area (the
// directory of the test file, e.g. base/psn), one <testcase> per test purpose with
// classname = area and name = tp_id, valid against the common schema (junit.xsd). Each suite's
// properties say what the run was: profile, seed, harness, DUT, every mutant (`mutant`) and
// every run option (`option.NAME`). JUnit has no inconclusive or not-applicable, so:
//   fail           <failure message="first failure" type="field">every failure</failure>
//   error          <error message="reason">reason and any failures</error>
//   inconc         <skipped message="inconclusive: reason"/>
//   not-applicable <skipped message="reason"/>
//   none           <skipped message="no verdict: ..."/>
#include <map>
#include <vector>

#include "harness/report/coverage.h"
#include "harness/report/escape.h"
#include "harness/report/format.h"
#include "harness/report/writer.h"

namespace mr::report {
namespace {

struct Suite {
  std::vector<const TestResult*> tests;
  int failures = 0, errors = 0, skipped = 0;
  double time = 0;
};

std::string failure_line(const Failure& f, const spec::ClauseCatalog& catalog) {
  return f.file + ":" + std::to_string(f.line) + ": " + f.field + ": expected " + f.expected +
         " vs actual " + f.actual + (f.message.empty() ? "" : " (" + f.message + ")") +
         (f.clauses.empty() ? "" : " [" + clause_note(f.clauses, catalog) + "]");
}

std::string all_failures(const TestResult& t, const spec::ClauseCatalog& catalog) {
  std::string out;
  for (const Failure& f : t.failures) out += failure_line(f, catalog) + "\n";
  return out;
}

std::string skip_message(const TestResult& t) {
  switch (t.verdict) {
    case Verdict::kInconc:
      return "inconclusive: " + (t.reason.empty() ? std::string("no reason given") : t.reason);
    case Verdict::kNotApplicable:
      return t.reason.empty() ? std::string("not applicable") : t.reason;
    default:
      return "no verdict: the test ended without setting one" +
             (t.reason.empty() ? std::string() : ": " + t.reason);
  }
}

void append_testcase(std::string& out, const std::string& area, const TestResult& t,
                     const spec::ClauseCatalog& catalog) {
  // The common schema (junit.xsd) has a status attribute, where the verdict goes, and no
  // properties or file on a test case: the file and the capture go to system-out.
  out += "    <testcase classname=\"" + attr_escape(area) + "\" name=\"" + attr_escape(t.tp_id) +
         "\" time=\"" + format_seconds(t.duration_s) + "\" status=\"" +
         attr_escape(to_string(t.verdict)) + "\">\n";
  switch (t.verdict) {
    case Verdict::kPass:
      break;
    case Verdict::kFail: {
      const std::string message = t.failures.empty() ? (t.reason.empty() ? "failed" : t.reason)
                                                     : failure_line(t.failures.front(), catalog);
      const std::string type = t.failures.empty() ? "fail" : t.failures.front().field;
      out += "      <failure message=\"" + attr_escape(message) + "\" type=\"" + attr_escape(type) +
             "\">" + text_escape(all_failures(t, catalog)) + "</failure>\n";
      break;
    }
    case Verdict::kError:
      out += "      <error message=\"" +
             attr_escape(t.reason.empty() ? std::string("harness error") : t.reason) +
             "\" type=\"error\">" + text_escape(t.reason + "\n" + all_failures(t, catalog)) +
             "</error>\n";
      break;
    default:
      out += "      <skipped message=\"" + attr_escape(skip_message(t)) + "\"/>\n";
      break;
  }
  std::string notes = "file: " + t.file + "\nverdict: " + std::string(to_string(t.verdict)) + "\n";
  if (!t.capture.empty()) notes += "capture: " + t.capture + "\n";
  out += "      <system-out>" + text_escape(notes) + "</system-out>\n";
  out += "    </testcase>\n";
}

void append_property(std::string& out, std::string_view name, std::string_view value) {
  out +=
      "      <property name=\"" + attr_escape(name) + "\" value=\"" + attr_escape(value) + "\"/>\n";
}

// What the run was, on every suite (the common schema has no properties on <testsuites>):
// a CI page of a run on a mutated reference must not read like a conformance result, and
// the options say how to run it again.
void append_properties(std::string& out, const RunResult& run) {
  out += "    <properties>\n";
  append_property(out, "profile", run.profile);
  append_property(out, "seed", std::to_string(run.seed));
  append_property(out, "harness_version", run.harness_version);
  append_property(out, "dut", safe_dump(run.dut));
  for (const std::string& m : run.mutants) append_property(out, "mutant", m);
  if (run.shard) {
    append_property(out, "shard",
                    std::to_string(run.shard->index) + "/" + std::to_string(run.shard->total));
  }
  if (run.options.is_object()) {
    for (const auto& [key, value] : run.options.items()) {
      append_property(out, "option." + key, plain_text(value));
    }
  }
  out += "    </properties>\n";
}

}  // namespace

std::string render_junit_xml(const RenderContext& ctx) {
  const RunResult& run = ctx.run;
  std::map<std::string, Suite> suites;
  int failures = 0, errors = 0;  // the common schema has no skipped count for all suites
  for (const TestResult& t : run.tests) {
    Suite& s = suites[area_of(t.file)];
    s.tests.push_back(&t);
    s.time += t.duration_s;
    if (t.verdict == Verdict::kFail) ++s.failures, ++failures;
    if (t.verdict == Verdict::kError) ++s.errors, ++errors;
    if (t.verdict != Verdict::kPass && t.verdict != Verdict::kFail &&
        t.verdict != Verdict::kError) {
      ++s.skipped;
    }
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"metaroce\" tests=\"" + std::to_string(run.tests.size()) +
         "\" failures=\"" + std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
         "\" time=\"" + format_seconds(run.duration_s) + "\">\n";
  int id = 0;
  for (const auto& [area, s] : suites) {
    out += "  <testsuite name=\"" + attr_escape(area) + "\" id=\"" + std::to_string(id++) +
           "\" tests=\"" + std::to_string(s.tests.size()) + "\" failures=\"" +
           std::to_string(s.failures) + "\" errors=\"" + std::to_string(s.errors) +
           "\" skipped=\"" + std::to_string(s.skipped) + "\" time=\"" + format_seconds(s.time) +
           "\" timestamp=\"" + attr_escape(run.started_at) + "\">\n";
    append_properties(out, run);
    for (const TestResult* t : s.tests) append_testcase(out, area, *t, run.catalog);
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace mr::report
