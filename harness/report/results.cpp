// File: results.cpp
//
// Verdict names and ordering, and the run-level aggregates of the results model.
#include "harness/report/results.h"

#include <array>

namespace mr::report {
namespace {

// TTCN-3 order: none < pass < inconc < fail < error. Not-applicable is outside the order.
constexpr int rank(Verdict v) {
  switch (v) {
    case Verdict::kNone:
      return 0;
    case Verdict::kPass:
      return 1;
    case Verdict::kInconc:
      return 2;
    case Verdict::kFail:
      return 3;
    case Verdict::kError:
      return 4;
    case Verdict::kNotApplicable:
      return -1;
  }
  return 4;  // an out-of-range value is a harness fault
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kNone:
      return "none";
    case Verdict::kPass:
      return "pass";
    case Verdict::kInconc:
      return "inconc";
    case Verdict::kFail:
      return "fail";
    case Verdict::kError:
      return "error";
    case Verdict::kNotApplicable:
      return "not-applicable";
  }
  return "error";
}

std::optional<Verdict> verdict_from_string(std::string_view s) {
  for (Verdict v : kAllVerdicts) {
    if (to_string(v) == s) return v;
  }
  return std::nullopt;
}

// Not-applicable is the identity: a test that does not apply neither improves nor spoils
// a verdict it is combined with.
Verdict worse(Verdict a, Verdict b) {
  if (a == Verdict::kNotApplicable) return b;
  if (b == Verdict::kNotApplicable) return a;
  return rank(a) >= rank(b) ? a : b;
}

bool TestResult::flaky() const {
  for (const Repetition& r : repetitions) {
    if (r.verdict != repetitions.front().verdict) return true;
  }
  return false;
}

std::vector<const TestResult*> tests_worst_first(const std::vector<TestResult>& tests) {
  std::vector<const TestResult*> out;
  out.reserve(tests.size());
  for (Verdict v : kVerdictsWorstFirst) {
    for (const TestResult& t : tests) {
      if (t.verdict == v) out.push_back(&t);
    }
  }
  return out;
}

std::vector<std::pair<Verdict, int>> RunResult::counts_worst_first() const {
  const auto by_verdict = counts();
  std::vector<std::pair<Verdict, int>> out;
  for (Verdict v : kVerdictsWorstFirst) {
    if (const int n = by_verdict.at(v); n > 0) out.emplace_back(v, n);
  }
  return out;
}

std::map<Verdict, int> RunResult::counts() const {
  std::map<Verdict, int> out;
  for (Verdict v : kAllVerdicts) out[v] = 0;
  for (const TestResult& t : tests) ++out[t.verdict];
  return out;
}

// The worst verdict of the applicable tests; not-applicable when no test applies, none
// when the run has no tests at all.
Verdict RunResult::overall() const {
  if (tests.empty()) return Verdict::kNone;
  Verdict v = Verdict::kNotApplicable;
  for (const TestResult& t : tests) v = worse(v, t.verdict);
  return v;
}

}  // namespace mr::report
