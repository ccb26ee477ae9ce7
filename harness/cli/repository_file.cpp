#include "harness/cli/repository_file.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "reference/io/command.h"

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

// The first line `git -C <root> ARGS...` prints, "" on any failure (no checkout, no git).
// Bounded, and git answers from its index at once, with no network.
std::string git_line(std::vector<std::string> args) {
  std::string root = find_root();
  args.insert(args.begin(), {"git", "-C", root.empty() ? "." : root});
  auto out = io::run_command(args, 5'000);
  if (!out) return "";
  return out->substr(0, out->find('\n'));
}

}  // namespace

std::string repository_commit() {
  std::string commit = git_line({"rev-parse", "HEAD"});
  if (commit.empty()) return "";
  if (!git_line({"status", "--porcelain", "--untracked-files=no"}).empty()) commit += "-dirty";
  return commit;
}

HarnessCommit harness_commit(std::string_view stamped) {
  if (!stamped.empty()) return {std::string(stamped), std::string(kCommitOfTheBuild)};
  std::string checkout = repository_commit();
  if (checkout.empty()) return {"", std::string(kCommitUnknown)};
  return {std::move(checkout), std::string(kCommitOfTheCheckout)};
}

// Looked up at each call (a few stat calls), not cached: the working directory can change.
std::string repository_root() { return find_root(); }

std::string repository_file(std::string_view relative) {
  const std::string root = repository_root();
  if (root.empty()) return std::string(relative);
  return (fs::path(root) / relative).string();
}

}  // namespace mr::cli
