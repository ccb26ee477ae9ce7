// File: fleet_result.h
//
// A whole fleet's results, as the fleet report shows them: every node judged
// (node_result.h), the clauses any node covered, the fleet's majority verdict on each and
// the nodes that differ from it (outliers: a node that fails where the fleet passes, or
// passes where the rest fail), and the order a reader wants: failing, erroring,
// inconclusive nodes first, then outliers, then the rest, each group in fleet file order.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/fleet/node_result.h"

namespace mr::fleet {

struct FleetResult {
  std::string name;
  std::vector<NodeResult> nodes;     // in reading order (see order_for_readers)
  std::vector<std::string> clauses;  // every clause some node covered, sorted
  // The verdict more than half of the nodes covering a clause have; absent when none has.
  std::map<std::string, Verdict> majority;
  // Per node name: the clauses where it differs from the majority.
  std::map<std::string, std::vector<std::string>> outlier_clauses;

  bool all_passed() const;
  Verdict overall() const;  // the worst node verdict (none for an empty fleet)
};

// Computes clauses, majority and outliers from `nodes` (in fleet file order) and orders
// them for readers.
FleetResult make_fleet_result(std::string name, std::vector<NodeResult> nodes);

// The three files of a collected fleet directory.
std::string render_fleet_html(const FleetResult& fleet);
nlohmann::json render_fleet_json(const FleetResult& fleet);
std::string render_fleet_junit(const FleetResult& fleet);

}  // namespace mr::fleet
