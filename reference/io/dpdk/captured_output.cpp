#include "reference/io/dpdk/captured_output.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

namespace mr::io::dpdk {
namespace {

// Saves a descriptor and puts it back when destroyed, also on an early return.
class SavedDescriptor {
 public:
  explicit SavedDescriptor(int fd) : fd_(fd), saved_(::dup(fd)) {}
  SavedDescriptor(const SavedDescriptor&) = delete;
  SavedDescriptor& operator=(const SavedDescriptor&) = delete;
  ~SavedDescriptor() {
    if (saved_ < 0) return;
    ::dup2(saved_, fd_);
    ::close(saved_);
  }
  bool ok() const { return saved_ >= 0; }

 private:
  int fd_;
  int saved_;
};

std::string read_all(int fd) {
  std::string text;
  if (::lseek(fd, 0, SEEK_SET) != 0) return text;
  char buffer[4096];
  for (ssize_t n = ::read(fd, buffer, sizeof buffer); n > 0; n = ::read(fd, buffer, sizeof buffer))
    text.append(buffer, static_cast<size_t>(n));
  return text;
}

}  // namespace

int capture_output(const std::function<int()>& fn, CapturedOutput& printed) {
  printed = {};
  const int out_file = ::memfd_create("mr-captured-stdout", MFD_CLOEXEC);
  const int err_file = ::memfd_create("mr-captured-stderr", MFD_CLOEXEC);
  const auto close_files = [&] {
    if (out_file >= 0) ::close(out_file);
    if (err_file >= 0) ::close(err_file);
  };
  // Flushed first so that earlier output is not captured, and again before the descriptors
  // return so that captured output does not leak out later from stdio's buffer.
  std::fflush(stdout);
  std::fflush(stderr);
  int rc = 0;
  {
    const SavedDescriptor out(STDOUT_FILENO);
    const SavedDescriptor err(STDERR_FILENO);
    if (out_file < 0 || err_file < 0 || !out.ok() || !err.ok() ||
        ::dup2(out_file, STDOUT_FILENO) < 0 || ::dup2(err_file, STDERR_FILENO) < 0) {
      close_files();
      return fn();
    }
    rc = fn();
    std::fflush(stdout);
    std::fflush(stderr);
  }
  printed.out = read_all(out_file);
  printed.err = read_all(err_file);
  close_files();
  return rc;
}

std::string explanation_lines(const std::string& text) {
  std::istringstream in(text);
  std::string joined;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == ' ' || line.front() == '\t') continue;
    if (line.back() == ':' || line.rfind("Usage:", 0) == 0) continue;
    joined += (joined.empty() ? "" : "; ") + line;
  }
  return joined;
}

}  // namespace mr::io::dpdk
