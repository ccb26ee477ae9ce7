// File: node_result.h
//
// What one row of a fleet came to, read back from its folder by `fleet --collect`: its
// status.json and its run's report.json (harness/report/report.schema.json), judged into
// one verdict for the node. Nothing is a pass unless a finished run's report says so:
//   no status.json                     error   never ran (pending, cancelled, not launched)
//   "running"                          inconc  started, never finished (SIGKILL, node lost,
//                                              or still running when collected)
//   "killed"                           inconc  SIGTERM: time limit or scancel
//   finished, exit 2 or no report      error   the run could not judge (no result)
//   finished with a report             the report's overall verdict
// The doctor's worst finding is shown beside it, not folded in: for an embedded reference
// DUT this host's RDMA readiness says nothing about the DUT.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/fleet/fleet_plan.h"
#include "harness/fleet/task_status.h"
#include "harness/report/results.h"

namespace mr::fleet {

using report::Verdict;

struct TestOutcome {
  std::string tp_id;
  std::string area;
  Verdict verdict = Verdict::kNone;
  std::vector<std::string> clauses;
  std::string reason;
  double duration_s = 0;
};

struct NodeResult {
  size_t row = 0;
  FleetRow planned;
  std::optional<TaskStatus> status;
  Verdict verdict = Verdict::kNone;
  std::string reason;                 // why it is not a plain report verdict; "" otherwise
  std::map<std::string, int> counts;  // report.json's, by verdict name
  std::vector<TestOutcome> tests;     // report.json's, in its order
  std::map<std::string, Verdict> clause_verdicts;  // coverage: covered clauses only
  std::vector<std::string> failing_clauses;        // clauses whose verdict is fail/error
  std::string folder;                              // nodes/NAME, relative to the fleet dir
  bool has_report_html = false;                    // folder/run/index.html exists

  bool passed() const { return verdict == Verdict::kPass; }
};

// `status` and `report` are the parsed files, or nullopt when absent; `problem` an error
// met while reading them (then the node is an error naming it).
NodeResult judge_node(size_t row, const FleetRow& planned, std::optional<TaskStatus> status,
                      const std::optional<nlohmann::json>& report, const std::string& problem);

// Reads DIR/nodes/NAME/status.json and run/report.json and judges them.
NodeResult read_node_result(const FleetPlan& plan, size_t row);

}  // namespace mr::fleet
