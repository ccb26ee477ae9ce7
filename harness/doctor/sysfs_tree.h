// File: sysfs_tree.h
//
// Read-only access to /sys and /proc under a root directory, so that tests inspect a fake
// tree laid out in a temporary directory and the doctor inspects "/" the same way.
// Unreadable files are values, not errors: sysfs answers EINVAL for unused GID entries,
// and a missing knob is a fact about the host.
//
//   SysfsTree t("/");
//   auto state = t.read("sys/class/infiniband/rxe0/ports/1/state");  // "4: ACTIVE"
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mr::doctor {

class SysfsTree {
 public:
  explicit SysfsTree(std::filesystem::path root) : root_(std::move(root)) {}

  // The file's first line without surrounding white space; nullopt when it cannot be read.
  std::optional<std::string> read(std::string_view relative) const;
  // read() as an unsigned decimal number; nullopt when absent or not a number.
  std::optional<uint64_t> read_uint(std::string_view relative) const;
  // The names in a directory, sorted; empty when it does not exist.
  std::vector<std::string> list(std::string_view relative) const;
  bool exists(std::string_view relative) const;

  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path path(std::string_view relative) const { return root_ / relative; }

  std::filesystem::path root_;
};

}  // namespace mr::doctor
