#include "harness/fleet/node_result.h"

#include <filesystem>
#include <fstream>
#include <utility>

namespace mr::fleet {
namespace {

using Json = nlohmann::json;

Verdict verdict_of(const Json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return Verdict::kError;
  return report::verdict_from_string(j[key].get<std::string>()).value_or(Verdict::kError);
}

// tests[], counts, coverage[] of a report.json.
void take_report(NodeResult& n, const Json& r) {
  n.verdict = verdict_of(r, "overall");
  if (r.contains("counts") && r["counts"].is_object()) {
    for (const auto& [name, count] : r["counts"].items()) {
      if (count.is_number_integer()) n.counts[name] = count.get<int>();
    }
  }
  for (const Json& t : r.value("tests", Json::array())) {
    TestOutcome o;
    o.tp_id = t.value("tp_id", "?");
    o.area = t.value("area", "");
    o.verdict = verdict_of(t, "verdict");
    o.reason = t.value("reason", "");
    o.duration_s = t.value("duration_s", 0.0);
    for (const Json& c : t.value("clauses", Json::array())) {
      if (c.is_string()) o.clauses.push_back(c.get<std::string>());
    }
    n.tests.push_back(std::move(o));
  }
  for (const Json& c : r.value("coverage", Json::array())) {
    if (!c.value("covered", false) || !c.contains("id")) continue;
    const Verdict v = verdict_of(c, "verdict");
    if (v == Verdict::kNone) continue;
    n.clause_verdicts[c["id"].get<std::string>()] = v;
    if (v == Verdict::kFail || v == Verdict::kError) {
      n.failing_clauses.push_back(c["id"].get<std::string>());
    }
  }
}

// Where the task's own output went: sbatch_script.h's --output pattern.
std::string slurm_output(const TaskStatus& s) {
  if (s.slurm_array_job_id.empty()) return "the task's standard error";
  return "slurm/" + s.slurm_array_job_id + "_" + s.slurm_array_task_id + ".out";
}

}  // namespace

NodeResult judge_node(size_t row, const FleetRow& planned, std::optional<TaskStatus> status,
                      const std::optional<Json>& report, const std::string& problem) {
  NodeResult n;
  n.row = row;
  n.planned = planned;
  n.status = std::move(status);
  n.folder = "nodes/" + planned.name;
  if (!problem.empty()) {
    n.verdict = Verdict::kError;
    n.reason = problem;
  } else if (!n.status) {
    n.verdict = Verdict::kError;
    n.reason =
        "never ran: no status.json (the task was never started: still pending, "
        "cancelled, or it failed to launch)";
  } else if (n.status->state == kStateRunning) {
    n.verdict = Verdict::kInconc;
    n.reason = "started at " + n.status->started_at + " on " + n.status->host +
               " and never finished (killed by SIGKILL, the node lost, or still running)";
  } else if (n.status->state == kStateKilled) {
    n.verdict = Verdict::kInconc;
    n.reason = "killed by " + n.status->signal + " at " + n.status->finished_at + " on " +
               n.status->host + " (the job's time limit, or scancel)";
  } else if (!report) {
    n.verdict = Verdict::kError;
    n.reason = "no result: the run exited " +
               (n.status->run_exit ? std::to_string(*n.status->run_exit) : std::string("?")) +
               " without a report.json (its messages are in " + slurm_output(*n.status) + ")";
  } else {
    take_report(n, *report);
    if (n.status->run_exit == 2) {
      n.verdict = report::worse(n.verdict, Verdict::kError);
      n.reason = "the run exited 2 (harness error)";
    }
  }
  return n;
}

NodeResult read_node_result(const FleetPlan& plan, size_t row) {
  const std::string folder = plan.node_folder(row);
  const FleetRow& planned = plan.fleet.rows.at(row);
  const std::string status_path = folder + "/status.json";
  if (!std::filesystem::exists(status_path)) {
    return judge_node(row, planned, std::nullopt, std::nullopt, "");
  }
  auto status = read_status(status_path);
  if (!status) return judge_node(row, planned, std::nullopt, std::nullopt, status.error());
  const std::string report_path = folder + "/run/report.json";
  std::optional<Json> report;
  if (status->state == kStateFinished && std::filesystem::exists(report_path)) {
    std::ifstream in(report_path, std::ios::binary);
    try {
      report = Json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      return judge_node(row, planned, *status, std::nullopt, report_path + ": " + e.what());
    }
  }
  NodeResult n = judge_node(row, planned, std::move(*status), report, "");
  n.has_report_html = report && std::filesystem::exists(folder + "/run/index.html");
  return n;
}

}  // namespace mr::fleet
