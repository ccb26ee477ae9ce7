#include "harness/cli/progress_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace mr::cli {
namespace {

constexpr size_t kDefaultWidth = 80;
constexpr int kMaxWriteTries = 64;

int count_of(const engine::SuiteProgress& p, report::Verdict v) {
  const auto it = p.counts.find(v);
  return it == p.counts.end() ? 0 : it->second;
}

size_t terminal_width(int fd) {
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return kDefaultWidth;
}

}  // namespace

std::string format_progress_line(const engine::SuiteProgress& p, size_t width) {
  const size_t n = p.current.empty() ? p.done : std::min(p.done + 1, p.total);
  std::string line = "[" + std::to_string(n) + "/" + std::to_string(p.total) + "]";
  line += " pass " + std::to_string(count_of(p, report::Verdict::kPass));
  line += " fail " + std::to_string(count_of(p, report::Verdict::kFail));
  line += " inconc " + std::to_string(count_of(p, report::Verdict::kInconc));
  line += " n/a " + std::to_string(count_of(p, report::Verdict::kNotApplicable));
  line += " error " + std::to_string(count_of(p, report::Verdict::kError));
  if (!p.current.empty()) line += "  " + p.current;
  const size_t limit = width > 1 ? width - 1 : 0;
  if (line.size() > limit) line.resize(limit);
  return line;
}

ProgressLine::ProgressLine(int fd, bool wanted) : fd_(fd), active_(wanted && isatty(fd) == 1) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::show(const engine::SuiteProgress& progress) {
  if (!active_) return;
  // Carriage return, the line, then erase whatever a longer previous line left behind.
  write_all("\r" + format_progress_line(progress, terminal_width(fd_)) + "\x1b[K");
  shown_ = true;
}

void ProgressLine::clear() {
  if (!active_ || !shown_) return;
  write_all("\r\x1b[K");
  shown_ = false;
}

void ProgressLine::write_all(const std::string& text) const {
  size_t at = 0;
  for (int i = 0; i < kMaxWriteTries && at < text.size(); ++i) {
    const ssize_t n = ::write(fd_, text.data() + at, text.size() - at);
    if (n < 0 && errno != EINTR) return;  // a progress line is never worth an error
    if (n > 0) at += static_cast<size_t>(n);
  }
}

}  // namespace mr::cli
