#include "reference/io/dpdk/dpdk_eal.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <sched.h>

#include <cstdio>
#include <mutex>

#include "reference/io/dpdk/captured_output.h"

namespace mr::io::dpdk {
namespace {

enum class EalState : uint8_t { kNeverStarted, kRunning, kCleanedUp, kBroken };

// The one EAL of the process. The argument strings stay alive as long as it: EAL keeps
// pointers into argv. One attempt only: a failed start is final.
struct ProcessEal {
  std::mutex mutex;
  EalState state = EalState::kNeverStarted;
  std::weak_ptr<DpdkEal> handle;
  std::vector<std::string> arguments;
  std::string broken_reason;
  std::vector<std::string> argv_storage;
};

// Built at the first start(), so destroyed after any handle a static of a caller keeps.
ProcessEal& process_eal() {
  static ProcessEal eal;
  return eal;
}

// "0,1": the list of the CPUs this process may run on.
std::string allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "0";
  std::string list;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) list += (list.empty() ? "" : ",") + std::to_string(cpu);
  }
  return list.empty() ? "0" : list;
}

}  // namespace

std::string join_arguments(const std::vector<std::string>& arguments) {
  std::string joined;
  for (const auto& a : arguments) joined += (joined.empty() ? "" : " ") + a;
  return joined;
}

std::vector<std::string> DpdkEal::default_arguments() {
  return {"--no-huge",
          "-m",
          "256",
          "--no-pci",
          "--no-shconf",
          "--no-telemetry",
          "--log-level=error",
          "--lcores=0@(" + allowed_cpus() + ")"};
}

Expected<std::shared_ptr<DpdkEal>, std::string> DpdkEal::start(
    const std::vector<std::string>& arguments) {
  ProcessEal& eal = process_eal();
  const std::lock_guard lock(eal.mutex);
  switch (eal.state) {
    case EalState::kRunning:
      if (arguments != eal.arguments) {
        return Unexpected("DPDK's EAL runs already with \"" + join_arguments(eal.arguments) +
                          "\"; it starts once per process and cannot take \"" +
                          join_arguments(arguments) + "\"");
      }
      if (auto running = eal.handle.lock()) return running;
      break;  // the last handle is going away right now: treat as cleaned up
    case EalState::kCleanedUp:
      return Unexpected(std::string(
          "DPDK's EAL was started and cleaned up in this process; it cannot start again"));
    case EalState::kBroken:
      return Unexpected("DPDK's EAL cannot start in this process after an earlier failure: " +
                        eal.broken_reason);
    case EalState::kNeverStarted:
      break;
  }
  if (eal.state != EalState::kNeverStarted) {
    return Unexpected(std::string("DPDK's EAL is shutting down in this process"));
  }
  std::vector<std::string>& storage = eal.argv_storage;
  storage.emplace_back("metaroce");
  storage.insert(storage.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The log goes to stderr (where it is captured), not to syslog as EAL's default does.
  rte_openlog_stream(stderr);
  CapturedOutput printed;
  const int rc = capture_output(
      [&] { return rte_eal_init(static_cast<int>(storage.size()), argv.data()); }, printed);
  if (rc < 0) {
    const int error = rte_errno;
    std::string message = "rte_eal_init(" + join_arguments(arguments) + "): " + rte_strerror(error);
    // stdout holds EAL's usage text; stderr the unknown option, the refused value.
    if (const std::string why = explanation_lines(printed.err); !why.empty()) {
      message += ": " + why;
    }
    // DPDK resets its start flag after arguments that do not parse, but not the options it
    // parsed before the bad one: a second attempt fails on those. Never again, then.
    eal.state = EalState::kBroken;
    eal.broken_reason = message;
    return Unexpected(message);
  }
  std::fputs(printed.out.c_str(), stdout);  // a good start's notes, where they would have gone
  std::fputs(printed.err.c_str(), stderr);
  auto handle = std::make_shared<DpdkEal>(Key{}, arguments);
  eal.state = EalState::kRunning;
  eal.arguments = arguments;
  eal.handle = handle;
  return handle;
}

DpdkEal::~DpdkEal() {
  ProcessEal& eal = process_eal();
  const std::lock_guard lock(eal.mutex);
  rte_eal_cleanup();
  eal.state = EalState::kCleanedUp;
}

}  // namespace mr::io::dpdk
