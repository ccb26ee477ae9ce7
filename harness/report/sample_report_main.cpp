// File: sample_report_main.cpp
//
// Writes the synthetic sample run (sample_run.h) to a run directory, to look at the reports:
//   bazel run //harness/report:sample_report -- /tmp/sample-run
#include <iostream>

#include "harness/report/run_directory.h"
#include "harness/report/sample_run.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: sample_report DIR\n";
    return 2;
  }
  auto ok = mr::report::write_run_directory(mr::report::testing::sample_run(), argv[1]);
  if (!ok) {
    std::cerr << ok.error() << "\n";
    return 1;
  }
  return 0;
}
