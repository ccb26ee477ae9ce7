// File: coverage.cpp
#include "harness/report/coverage.h"

#include <algorithm>
#include <map>

namespace mr::report {
namespace {

int level_rank(std::string_view level) {
  static constexpr std::string_view kOrder[] = {"MUST", "MUST-IF", "SHOULD", "MAY"};
  for (size_t i = 0; i < std::size(kOrder); ++i) {
    if (kOrder[i] == level) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kOrder));
}

}  // namespace

std::vector<ClauseCoverage> clause_coverage(const RunResult& run) {
  std::vector<ClauseCoverage> out;
  std::map<std::string, size_t> index;
  for (const auto& c : run.catalog.clauses()) {
    ClauseCoverage cov;
    cov.id = c.id;
    cov.level = c.level;
    cov.statement = c.statement;
    index.emplace(cov.id, out.size());
    out.push_back(std::move(cov));
  }
  for (const TestResult& t : run.tests) {
    for (const std::string& id : t.clauses) {
      auto it = index.find(id);
      if (it == index.end()) {
        ClauseCoverage cov;
        cov.id = id;
        cov.in_catalog = false;
        it = index.emplace(id, out.size()).first;
        out.push_back(std::move(cov));
      }
      ClauseCoverage& cov = out[it->second];
      if (std::find(cov.tests.begin(), cov.tests.end(), &t) != cov.tests.end()) continue;
      cov.tests.push_back(&t);
      cov.verdict = worse(cov.verdict, t.verdict);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const ClauseCoverage& a, const ClauseCoverage& b) {
    const int ra = a.in_catalog ? level_rank(a.level) : 99;
    const int rb = b.in_catalog ? level_rank(b.level) : 99;
    return ra < rb;
  });
  return out;
}

std::string area_of(std::string_view file) {
  constexpr std::string_view kRoot = "testcases/";
  if (const size_t at = file.rfind(kRoot);
      at != std::string_view::npos && (at == 0 || file[at - 1] == '/')) {
    file.remove_prefix(at + kRoot.size());
  }
  const size_t slash = file.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "(top)";
  return std::string(file.substr(0, slash));
}

}  // namespace mr::report
