#include "harness/fleet/fleet_result.h"

#include <algorithm>
#include <set>
#include <utility>

namespace mr::fleet {
namespace {

// 0: needs attention (fail, error, inconc, no verdict), 1: passed but an outlier, 2: passed.
int group_of(const NodeResult& n, const FleetResult& f) {
  if (!n.passed()) return 0;
  return f.outlier_clauses.contains(n.planned.name) ? 1 : 2;
}

size_t worst_first_rank(Verdict v) {
  const auto& order = report::kVerdictsWorstFirst;
  return static_cast<size_t>(std::find(order.begin(), order.end(), v) - order.begin());
}

}  // namespace

bool FleetResult::all_passed() const {
  return !nodes.empty() &&
         std::all_of(nodes.begin(), nodes.end(), [](const NodeResult& n) { return n.passed(); });
}

Verdict FleetResult::overall() const {
  Verdict v = Verdict::kNone;
  for (const NodeResult& n : nodes) v = report::worse(v, n.verdict);
  return v;
}

FleetResult make_fleet_result(std::string name, std::vector<NodeResult> nodes) {
  FleetResult f;
  f.name = std::move(name);
  std::set<std::string> clauses;
  for (const NodeResult& n : nodes) {
    for (const auto& [clause, v] : n.clause_verdicts) clauses.insert(clause);
  }
  f.clauses.assign(clauses.begin(), clauses.end());
  for (const std::string& clause : f.clauses) {
    std::map<Verdict, int> votes;
    int voters = 0;
    for (const NodeResult& n : nodes) {
      if (auto it = n.clause_verdicts.find(clause); it != n.clause_verdicts.end()) {
        ++votes[it->second];
        ++voters;
      }
    }
    for (const auto& [v, count] : votes) {
      if (2 * count > voters) f.majority[clause] = v;
    }
  }
  for (const NodeResult& n : nodes) {
    for (const auto& [clause, v] : n.clause_verdicts) {
      auto m = f.majority.find(clause);
      if (m != f.majority.end() && m->second != v)
        f.outlier_clauses[n.planned.name].push_back(clause);
    }
  }
  f.nodes = std::move(nodes);
  std::stable_sort(f.nodes.begin(), f.nodes.end(), [&f](const NodeResult& a, const NodeResult& b) {
    const int ga = group_of(a, f);
    const int gb = group_of(b, f);
    if (ga != gb) return ga < gb;
    if (ga == 0) return worst_first_rank(a.verdict) < worst_first_rank(b.verdict);
    return false;
  });
  return f;
}

}  // namespace mr::fleet
