#include "harness/cli/repository_file.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace mr::cli {
namespace {

namespace fs = std::filesystem;

bool is_root(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "docs/spec/clauses.json", ec) &&
         fs::is_directory(dir / "testcases", ec);
}

std::string find_root() {
  std::error_code ec;
  if (const char* env = std::getenv("METAROCE_ROOT"); env != nullptr && *env != '\0') {
    const fs::path root(env);
    if (fs::equivalent(root, fs::current_path(ec), ec)) return "";
    return root.string();
  }
  if (is_root(fs::current_path(ec))) return "";
  // Bounded: a path has finitely many parents, and 64 is far more than any real one.
  fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (int i = 0; i < 64 && !ec && !dir.empty(); ++i) {
    if (is_root(dir)) return dir.string();
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return "";  // not found: relative paths, whose errors then name what is missing
}

// The first line `git -C <root> ARGS` prints, "" on any failure. The root is passed quoted
// for the shell; git answers from its index at once, with no network.
std::string git_line(const std::string& args) {
  std::string root = find_root();
  if (root.empty()) root = ".";
  std::string quoted = "'";
  for (char c : root) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const std::string command = "git -C " + quoted + " " + args + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buffer[256];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr && out.size() < 4096) out += buffer;
  if (pclose(pipe) != 0) return "";
  if (const size_t nl = out.find('\n'); nl != std::string::npos) out.resize(nl);
  return out;
}

}  // namespace

std::string repository_commit() {
  std::string commit = git_line("rev-parse HEAD");
  if (commit.empty()) return "";
  if (!git_line("status --porcelain --untracked-files=no").empty()) commit += "-dirty";
  return commit;
}

// Looked up at each call (a few stat calls), not cached: the working directory can change.
std::string repository_root() { return find_root(); }

std::string repository_file(std::string_view relative) {
  const std::string root = repository_root();
  if (root.empty()) return std::string(relative);
  return (fs::path(root) / relative).string();
}

}  // namespace mr::cli
