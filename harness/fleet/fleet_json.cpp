// File: fleet_json.cpp
//
// DIR/fleet.json of a collected fleet: per node (in the order index.html lists them) its
// status, verdict, counts, failing and outlier clauses, doctor worst and paths.
#include "harness/fleet/fleet_result.h"

namespace mr::fleet {

nlohmann::json render_fleet_json(const FleetResult& f) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeResult& n : f.nodes) {
    const TaskStatus* s = n.status ? &*n.status : nullptr;
    auto outliers = f.outlier_clauses.find(n.planned.name);
    nlohmann::json failing_tests = nlohmann::json::array();
    for (const TestOutcome& t : n.tests) {
      if (t.verdict == Verdict::kFail || t.verdict == Verdict::kError) {
        failing_tests.push_back(t.tp_id);
      }
    }
    nodes.push_back(
        {{"name", n.planned.name},
         {"row", n.row},
         {"node", n.planned.node},
         {"dut", n.planned.dut},
         {"profile", n.planned.profile},
         {"mutants", n.planned.mutants},
         {"status", s != nullptr ? s->state : "never-ran"},
         {"host", s != nullptr ? s->host : ""},
         {"started_at", s != nullptr ? s->started_at : ""},
         {"finished_at", s != nullptr ? s->finished_at : ""},
         {"slurm_job", s != nullptr ? s->slurm_array_job_id + "_" + s->slurm_array_task_id : ""},
         {"run_exit",
          s != nullptr && s->run_exit ? nlohmann::json(*s->run_exit) : nlohmann::json()},
         {"overall", report::to_string(n.verdict)},
         {"reason", n.reason},
         {"counts", n.counts},
         {"failing_clauses", n.failing_clauses},
         {"failing_tests", std::move(failing_tests)},
         {"outlier_clauses",
          outliers != f.outlier_clauses.end() ? outliers->second : std::vector<std::string>{}},
         {"doctor_worst", s != nullptr ? s->doctor_worst : ""},
         {"paths",
          {{"status", n.folder + "/status.json"},
           {"doctor", n.folder + "/doctor.json"},
           {"run", n.folder + "/run"},
           {"report", n.folder + "/run/report.json"},
           {"index", n.folder + "/run/index.html"}}}});
  }
  nlohmann::json majority = nlohmann::json::object();
  for (const auto& [clause, v] : f.majority) majority[clause] = report::to_string(v);
  return {{"fleet", f.name},
          {"overall", report::to_string(f.overall())},
          {"all_passed", f.all_passed()},
          {"nodes", std::move(nodes)},
          {"clauses", f.clauses},
          {"majority", std::move(majority)}};
}

}  // namespace mr::fleet
