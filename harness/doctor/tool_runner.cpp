#include "harness/doctor/tool_runner.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "reference/io/command.h"

namespace mr::doctor {
namespace {

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

std::optional<std::string> find_program(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  const char* env = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe): read-only use
  std::string dirs = env != nullptr ? env : "";
  dirs += ":/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin";
  std::istringstream in(dirs);
  for (std::string dir; std::getline(in, dir, ':');) {
    if (dir.empty()) continue;
    std::string candidate = dir;
    candidate.append("/").append(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

ToolRunner system_tool_runner(uint64_t timeout_ms) {
  return [timeout_ms](const std::vector<std::string>& argv) {
    ToolProbe p{join(argv), ToolStatus::kAbsent, ""};
    auto program = argv.empty() ? std::nullopt : find_program(argv[0]);
    if (!program) {
      p.text = (argv.empty() ? std::string("(empty)") : argv[0]) + ": not installed";
      return p;
    }
    std::vector<std::string> resolved = argv;
    resolved[0] = *program;
    auto out = io::run_command(resolved, timeout_ms);
    if (!out) {
      p.status = ToolStatus::kFailed;
      // The error repeats the command line; the probe already carries it.
      const std::string prefix = join(resolved) + ": ";
      p.text = out.error().starts_with(prefix) ? out.error().substr(prefix.size()) : out.error();
      return p;
    }
    p.status = ToolStatus::kOk;
    p.text = std::move(*out);
    return p;
  };
}

ToolProbe probe(const ToolRunner& runner, const std::vector<std::string>& argv) {
  if (!runner) return {join(argv), ToolStatus::kNotRun, "not run: not the live host"};
  ToolProbe p = runner(argv);
  p.command = join(argv);
  return p;
}

}  // namespace mr::doctor
