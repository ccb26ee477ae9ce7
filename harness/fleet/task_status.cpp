#include "harness/fleet/task_status.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "harness/fleet/json_document.h"

namespace mr::fleet {

nlohmann::json status_to_json(const TaskStatus& s) {
  nlohmann::json j{{"row", s.row},
                   {"name", s.name},
                   {"state", s.state},
                   {"host", s.host},
                   {"started_at", s.started_at},
                   {"finished_at", s.finished_at},
                   {"slurm",
                    {{"job_id", s.slurm_job_id},
                     {"array_job_id", s.slurm_array_job_id},
                     {"array_task_id", s.slurm_array_task_id}}},
                   {"doctor_worst", s.doctor_worst},
                   {"signal", s.signal}};
  j["run_exit"] = s.run_exit ? nlohmann::json(*s.run_exit) : nlohmann::json(nullptr);
  return j;
}

Expected<TaskStatus, std::string> status_from_json(const nlohmann::json& j,
                                                   const std::string& origin) {
  TaskStatus s;
  try {
    s.row = j.at("row").get<size_t>();
    s.name = j.at("name").get<std::string>();
    s.state = j.at("state").get<std::string>();
    s.host = j.at("host").get<std::string>();
    s.started_at = j.at("started_at").get<std::string>();
    s.finished_at = j.at("finished_at").get<std::string>();
    const auto& slurm = j.at("slurm");
    s.slurm_job_id = slurm.at("job_id").get<std::string>();
    s.slurm_array_job_id = slurm.at("array_job_id").get<std::string>();
    s.slurm_array_task_id = slurm.at("array_task_id").get<std::string>();
    if (!j.at("run_exit").is_null()) s.run_exit = j.at("run_exit").get<int>();
    s.doctor_worst = j.at("doctor_worst").get<std::string>();
    s.signal = j.at("signal").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(origin + ": not a task status: " + e.what());
  }
  if (s.state != kStateRunning && s.state != kStateFinished && s.state != kStateKilled) {
    return Unexpected(origin + ": state: '" + s.state + "' is not running, finished or killed");
  }
  return s;
}

Expected<void, std::string> write_status(const std::string& path, const TaskStatus& s) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << status_to_json(s).dump(2) << "\n";
    if (!out.flush()) return Unexpected(temporary + ": cannot write");
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return Unexpected(path + ": cannot rename " + temporary + ": " + ec.message());
  return {};
}

Expected<TaskStatus, std::string> read_status(const std::string& path) {
  auto doc = JsonDocument::load(path);
  if (!doc) return Unexpected(doc.error());
  return status_from_json(doc->value(), path);
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text.data();
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "?";
  return name.data();
}

}  // namespace mr::fleet
