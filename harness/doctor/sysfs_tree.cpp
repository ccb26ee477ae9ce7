#include "harness/doctor/sysfs_tree.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <system_error>

namespace mr::doctor {
namespace {

// sysfs attributes are one short line; a bound keeps a hostile tree from costing memory.
constexpr size_t kMaxLine = 4096;

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

}  // namespace

std::optional<std::string> SysfsTree::read(std::string_view relative) const {
  // POSIX read, not a stream: sysfs reports an unused GID entry as a failing read (EINVAL),
  // which must differ from an empty file.
  const int fd = ::open(path(relative).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text(kMaxLine, '\0');
  ssize_t n = 0;
  do {
    n = ::read(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n < 0) return std::nullopt;
  text.resize(static_cast<size_t>(n));
  text.resize(std::min(text.size(), text.find('\n')));
  return trim(text);
}

std::optional<uint64_t> SysfsTree::read_uint(std::string_view relative) const {
  auto text = read(relative);
  if (!text || text->empty()) return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

std::vector<std::string> SysfsTree::list(std::string_view relative) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(path(relative), ec), end; !ec && it != end;
       it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool SysfsTree::exists(std::string_view relative) const {
  std::error_code ec;
  return std::filesystem::exists(path(relative), ec);
}

}  // namespace mr::doctor
