// File: run_directory.h
//
// Writes a run directory: every file of the writer table (writer.h) from one RunResult.
// Each file is written to a temporary name in the same directory and renamed into place, so
// a reader never sees half a report. The per-test pcapng captures are the capture module's.
//
//   if (auto ok = write_run_directory(run, "reports/latest"); !ok) {
//     std::cerr << ok.error() << "\n";
//   }
#pragma once

#include <string>

#include "harness/report/results.h"
#include "reference/error/expected.h"

namespace mr::report {

// Creates `dir` (and its parents) when missing. The error names the file and the cause.
Expected<void, std::string> write_run_directory(const RunResult& run, const std::string& dir);

// Writes `contents` to `path` atomically: a temporary file beside it, then rename(2).
Expected<void, std::string> write_file_atomically(const std::string& path,
                                                  std::string_view contents);

}  // namespace mr::report
