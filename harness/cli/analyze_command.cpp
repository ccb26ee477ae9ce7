#include "harness/cli/analyze_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "harness/analyze/analyze_capture.h"
#include "harness/analyze/pipelined_capture.h"
#include "harness/analyze/report.h"

namespace mr::cli {
namespace {

struct AnalyzeOptions {
  std::string file;
  bool json = false;
  // 2: decode on a second thread ahead of the analysis (pipelined_capture.h), the fastest
  // here; the output is the same either way.
  int threads = 2;
};

int exit_code(const analyze::Analyzer& a, bool failed_to_read) {
  if (failed_to_read) return kExitHarnessError;
  const auto& n = a.counts();
  return n.violations > n.tester_violations ? kExitFailed : kExitOk;
}

int run_analyze(const AnalyzeOptions& o) {
  analyze::ViolationList list;
  uint64_t tester_lines = 0;
  analyze::Analyzer a([&](const analyze::Violation& v) {
    if (o.json) {
      list.add(v);
      return;
    }
    if (v.by_tester) ++tester_lines;
    std::printf("%s\n", analyze::violation_line(v).c_str());
  });
  auto done = o.threads == 1 ? analyze::analyze_capture(o.file, a)
                             : analyze::analyze_capture_pipelined(o.file, a);
  std::optional<io::CaptureError> error;
  if (!done) error = done.error();
  // A link type the analysis cannot read refuses the capture: no summary, which would pass it
  // off as one read (with no frames, as a clean one).
  if (error && error->cause == io::CaptureError::Cause::kLinkType) {
    std::fflush(stdout);
    std::fprintf(stderr, "metaroce analyze: %s\n", error->to_string().c_str());
    return kExitHarnessError;
  }
  if (o.json) {
    std::cout << analyze::analysis_json(o.file, a, list, error).dump() << '\n';
    std::cout.flush();
  } else {
    const auto& n = a.counts();
    std::printf(
        "%llu frames (%llu RoCEv2, %llu other, %llu malformed, %llu snapped); "
        "%llu violations, %llu of them in packets the tester injected\n",
        static_cast<unsigned long long>(n.frames), static_cast<unsigned long long>(n.roce),
        static_cast<unsigned long long>(n.not_roce), static_cast<unsigned long long>(n.malformed),
        static_cast<unsigned long long>(n.snapped), static_cast<unsigned long long>(n.violations),
        static_cast<unsigned long long>(tester_lines));
    analyze::print_flow_summary(stdout, a);
    std::fflush(stdout);
  }
  if (error) {
    std::fprintf(stderr, "metaroce analyze: %s (after %llu frames)\n", error->to_string().c_str(),
                 static_cast<unsigned long long>(a.counts().frames));
  }
  return exit_code(a, error.has_value());
}

}  // namespace

Runner setup_analyze(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  app.add_option("file", o->file, "pcap or pcapng capture")->required();
  app.add_flag("--json", o->json, "one JSON object: counts, flows and violations");
  app.add_option("--threads", o->threads,
                 "1: all on one thread; 2: frame decode and ICRC on a second thread, ahead of "
                 "the checkers (same output)")
      ->check(CLI::Range(1, 2))
      ->capture_default_str();
  return [o] { return run_analyze(*o); };
}

}  // namespace mr::cli
