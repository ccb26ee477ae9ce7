#include "harness/cli/repository_file.h"

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

}  // namespace

// Looked up at each call (a few stat calls), not cached: the working directory can change.
std::string repository_root() { return find_root(); }

std::string repository_file(std::string_view relative) {
  const std::string root = repository_root();
  if (root.empty()) return std::string(relative);
  return (fs::path(root) / relative).string();
}

}  // namespace mr::cli
