// File: progress_line.h
//
// The live line `metaroce run` keeps on a terminal while the suite runs, rewritten in
// place and cleared before anything else is printed:
//
//   [12/175] pass 10 fail 1 inconc 0 n/a 1 error 0  RC-PSN-004
//
// Nothing at all when the stream is not a terminal: piped or redirected output stays the
// quiet, one-line-per-test record it always was.
#pragma once

#include <cstddef>
#include <string>

#include "harness/engine/suite_runner.h"

namespace mr::cli {

// The line for `progress`, at most `width` - 1 columns (a line that fills the last column
// wraps on some terminals, and then `\r` no longer returns to its start). The test number
// is that of the run under way, or of the last one when all are done.
std::string format_progress_line(const engine::SuiteProgress& progress, size_t width);

class ProgressLine {
 public:
  // Draws on `fd` when `wanted` and `fd` is a terminal; otherwise every call does nothing.
  ProgressLine(int fd, bool wanted);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool active() const { return active_; }
  void show(const engine::SuiteProgress& progress);
  // Erases the line: before other output on the same terminal, and at the end.
  void clear();

 private:
  void write_all(const std::string& text) const;

  int fd_;
  bool active_;
  bool shown_ = false;
};

}  // namespace mr::cli
