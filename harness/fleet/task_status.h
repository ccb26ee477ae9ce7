// File: task_status.h
//
// DIR/nodes/NAME/status.json: what became of one fleet task. Written when the task starts
// (state "running"), again when it ends ("finished", with the run's exit code and the
// doctor's worst finding) or when Slurm's SIGTERM stops it ("killed"). A task killed by
// SIGKILL stays "running" for ever: `fleet --collect` reports it as such, never as a pass.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "reference/error/expected.h"

namespace mr::fleet {

inline constexpr const char* kStateRunning = "running";
inline constexpr const char* kStateFinished = "finished";
inline constexpr const char* kStateKilled = "killed";

struct TaskStatus {
  size_t row = 0;
  std::string name;
  std::string state = kStateRunning;
  std::string host;
  std::string started_at;    // UTC, ISO 8601
  std::string finished_at;   // "" while running
  std::string slurm_job_id;  // "" outside Slurm
  std::string slurm_array_job_id;
  std::string slurm_array_task_id;
  std::optional<int> run_exit;
  std::string doctor_worst;  // "ok" | "warning" | "error"; "" before the doctor ran
  std::string signal;        // killed: "SIGTERM" or "SIGINT"
};

nlohmann::json status_to_json(const TaskStatus& s);
Expected<TaskStatus, std::string> status_from_json(const nlohmann::json& j,
                                                   const std::string& origin);
// Written to a temporary file, then renamed: a reader never sees half of it.
Expected<void, std::string> write_status(const std::string& path, const TaskStatus& s);
Expected<TaskStatus, std::string> read_status(const std::string& path);

// Now, UTC, "2026-12-05T14:20:16Z".
std::string utc_now();
// This host's name (gethostname).
std::string host_name();

}  // namespace mr::fleet
