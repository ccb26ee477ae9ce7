#include "harness/fleet/fleet_task.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "harness/doctor/doctor.h"
#include "harness/fleet/task_status.h"
#include "harness/fleet/termination_watch.h"

namespace mr::fleet {
namespace {

constexpr int kHarnessError = 2;  // as `metaroce run`'s

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

TaskStatus started(const FleetPlan& plan, size_t row) {
  TaskStatus s;
  s.row = row;
  s.name = plan.fleet.rows[row].name;
  s.host = host_name();
  s.started_at = utc_now();
  s.slurm_job_id = environment("SLURM_JOB_ID");
  s.slurm_array_job_id = environment("SLURM_ARRAY_JOB_ID");
  s.slurm_array_task_id = environment("SLURM_ARRAY_TASK_ID");
  return s;
}

// doctor.json: this host's report; the DUT's own, for an agent, is in the run's manifest.
doctor::Severity write_doctor(const FleetRow& row, const std::string& path) {
  const doctor::DoctorReport report = doctor::run_doctor(doctor::inspect_options_for("/"));
  nlohmann::json j{{"host", doctor::to_json(report)}};
  if (row.dut.starts_with("agent://")) {
    j["dut"] = "the agent's own doctor report is in run/manifest.json";
  } else if (row.dut.starts_with("verbs:")) {
    j["dut"] = "the device is this node's: the host report above is its host's";
  } else if (row.dut == "reference") {
    j["dut"] = "the embedded reference runs inside the harness: no host of its own";
  } else {
    j["dut"] = "the rxe guest's doctor report is in run/manifest.json";
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  if (!out.flush()) std::fprintf(stderr, "metaroce fleet: %s: cannot write\n", path.c_str());
  return report.worst();
}

}  // namespace

int run_fleet_task(const FleetPlan& plan, size_t row, const SuiteRun& run_suite) {
  const FleetRow& r = plan.fleet.rows.at(row);
  const std::string folder = plan.node_folder(row);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    std::fprintf(stderr, "metaroce fleet: %s: %s\n", folder.c_str(), ec.message().c_str());
    return kHarnessError;
  }
  const std::string status_path = folder + "/status.json";
  TaskStatus status = started(plan, row);
  if (auto written = write_status(status_path, status); !written) {
    std::fprintf(stderr, "metaroce fleet: %s\n", written.error().c_str());
    return kHarnessError;
  }
  std::fprintf(stderr, "metaroce fleet: row %zu (%s) on %s\n", row, r.name.c_str(),
               status.host.c_str());
  TaskStatus killed = status;  // what the watch writes; updated as the task goes on
  std::mutex killed_mutex;
  TerminationWatch watch([&](int sig) {
    const std::lock_guard lock(killed_mutex);
    killed.state = kStateKilled;
    killed.finished_at = utc_now();
    killed.signal = signal_name(sig);
    (void)write_status(status_path, killed);
    std::fprintf(stderr, "metaroce fleet: row %zu (%s) killed by %s\n", row, r.name.c_str(),
                 killed.signal.c_str());
  });
  const doctor::Severity worst = write_doctor(r, folder + "/doctor.json");
  {
    const std::lock_guard lock(killed_mutex);
    killed.doctor_worst = std::string(doctor::severity_name(worst));
  }
  const int code = run_suite(r, folder + "/run");
  status.doctor_worst = std::string(doctor::severity_name(worst));
  status.state = kStateFinished;
  status.finished_at = utc_now();
  status.run_exit = code;
  watch.settle([&] {
    if (auto written = write_status(status_path, status); !written) {
      std::fprintf(stderr, "metaroce fleet: %s\n", written.error().c_str());
    }
  });
  return code;
}

}  // namespace mr::fleet
