#include "harness/cli/job_count.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace mr::cli {
namespace {

// The cores this process may use (its affinity mask, as taskset or a container sets it).
int cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

}  // namespace

Expected<int, std::string> job_count(int requested) {
  constexpr int kMaxJobs = 256;
  if (requested < 0 || requested > kMaxJobs) {
    return Unexpected("--jobs " + std::to_string(requested) + ": give 1 to " +
                      std::to_string(kMaxJobs) + ", or 0 for one per core");
  }
  return requested == 0 ? cores() : requested;
}

}  // namespace mr::cli
