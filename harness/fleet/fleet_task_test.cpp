#include "harness/fleet/fleet_task.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "harness/fleet/task_status.h"

namespace mr::fleet {
namespace {

FleetPlan plan_in(const std::string& out) {
  auto fleet = parse_fleet(R"({"fleet": "f", "rows": [{"name": "r0", "dut": "reference"},
                                                      {"name": "r1", "dut": "reference"}]})",
                           "f.json", "");
  EXPECT_TRUE(fleet) << fleet.error();
  return make_plan(*fleet, "/f.json", "/bin/true", "/", out);
}

TEST(FleetTask, RecordsDoctorRunAndExitCode) {
  const std::string out = testing::TempDir() + "/task-finished";
  const FleetPlan plan = plan_in(out);
  std::string seen_folder;
  const int code = run_fleet_task(plan, 1, [&](const FleetRow& row, const std::string& folder) {
    EXPECT_EQ(row.name, "r1");
    seen_folder = folder;
    // While the suite runs, the task is on record as running.
    auto s = read_status(out + "/nodes/r1/status.json");
    EXPECT_TRUE(s) << s.error();
    if (s) {
      EXPECT_EQ(s->state, kStateRunning);
    }
    return 1;
  });
  EXPECT_EQ(code, 1);
  EXPECT_EQ(seen_folder, out + "/nodes/r1/run");
  auto s = read_status(out + "/nodes/r1/status.json");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->state, kStateFinished);
  EXPECT_EQ(s->row, 1U);
  EXPECT_EQ(s->run_exit, 1);
  EXPECT_EQ(s->host, host_name());
  EXPECT_FALSE(s->finished_at.empty());
  EXPECT_TRUE(s->doctor_worst == "ok" || s->doctor_worst == "warning" || s->doctor_worst == "error")
      << s->doctor_worst;
  std::ifstream doctor(out + "/nodes/r1/doctor.json");
  const auto j = nlohmann::json::parse(doctor);
  EXPECT_TRUE(j.at("host").contains("findings"));
  EXPECT_FALSE(std::filesystem::exists(out + "/nodes/r0"));
}

// Slurm's time limit: SIGTERM while the suite runs. The task is recorded as killed, with
// the signal, and ends with 128 + 15.
TEST(FleetTask, SigtermDuringTheSuiteIsRecordedAsKilled) {
  const std::string out = testing::TempDir() + "/task-killed";
  const FleetPlan plan = plan_in(out);
  const std::string marker = out + "/suite-started";
  std::filesystem::create_directories(out);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int code = run_fleet_task(plan, 0, [&](const FleetRow&, const std::string&) {
      std::ofstream(marker) << "x";
      std::this_thread::sleep_for(std::chrono::seconds(30));
      return 0;
    });
    _exit(code);
  }
  for (int i = 0; i < 200 && !std::filesystem::exists(marker); ++i) {  // bounded: 10 s
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(std::filesystem::exists(marker));
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 128 + SIGTERM);
  auto s = read_status(out + "/nodes/r0/status.json");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->state, kStateKilled);
  EXPECT_EQ(s->signal, "SIGTERM");
  EXPECT_FALSE(s->finished_at.empty());
  EXPECT_FALSE(s->run_exit.has_value());
  EXPECT_FALSE(s->doctor_worst.empty());
}

TEST(TaskStatus, RoundTripsAndRefusesAnUnknownState) {
  TaskStatus s;
  s.row = 4;
  s.name = "n";
  s.state = kStateFinished;
  s.run_exit = 0;
  s.slurm_array_job_id = "12";
  auto back = status_from_json(status_to_json(s), "s.json");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(status_to_json(*back), status_to_json(s));
  auto j = status_to_json(s);
  j["state"] = "done";
  auto bad = status_from_json(j, "s.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "s.json: state: 'done' is not running, finished or killed");
}

}  // namespace
}  // namespace mr::fleet
