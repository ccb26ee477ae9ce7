#include "harness/fleet/slurm_queue.h"

#include <chrono>
#include <sstream>
#include <thread>

#include "harness/fleet/sbatch_script.h"
#include "reference/io/command.h"

namespace mr::fleet {
namespace {

constexpr uint64_t kCommandTimeoutMs = 30'000;

}  // namespace

Expected<std::string, std::string> submit(const std::vector<std::string>& sbatch_argv) {
  auto out = io::run_command(sbatch_argv, kCommandTimeoutMs);
  if (!out) return Unexpected(out.error());
  std::string id = parse_job_id(*out);
  if (id.empty()) return Unexpected("sbatch printed no job id: '" + *out + "'");
  return id;
}

Expected<size_t, std::string> jobs_in_queue(const std::string& job_ids) {
  if (job_ids.empty()) return 0;
  auto out = io::run_command({"squeue", "-h", "-o", "%i %T", "-j", job_ids}, kCommandTimeoutMs);
  if (!out) {
    if (out.error().find("Invalid job id") != std::string::npos) return 0;
    return Unexpected(out.error());
  }
  std::istringstream lines(*out);
  size_t count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) ++count;
  }
  return count;
}

Expected<size_t, std::string> wait_for_jobs(const std::string& job_ids, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (;;) {
    auto queued = jobs_in_queue(job_ids);
    if (!queued || *queued == 0 || std::chrono::steady_clock::now() >= deadline) return queued;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace mr::fleet
