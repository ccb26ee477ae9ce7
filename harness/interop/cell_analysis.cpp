#include "harness/interop/cell_analysis.h"

#include "harness/analyze/analyze_capture.h"
#include "harness/analyze/analyzer.h"
#include "harness/analyze/report.h"

namespace mr::interop {

Expected<CellAnalysis, std::string> analyze_cell_capture(const std::string& path) {
  CellAnalysis out;
  analyze::Analyzer analyzer([&](const analyze::Violation& v) {
    ++out.violations_by_clause[std::string(v.clause)];
    if (out.violation_lines.size() < kViolationLinesKept) {
      out.violation_lines.push_back(analyze::violation_line(v));
    }
  });
  if (auto done = analyze::analyze_capture(path, analyzer); !done) {
    return Unexpected(path + ": " + done.error().to_string());
  }
  const analyze::AnalyzerCounts& n = analyzer.counts();
  out.frames = n.frames;
  out.roce_frames = n.roce;
  out.violations = n.violations;
  for (const auto& [key, d] : analyzer.flows().directions()) {
    out.retransmissions += d.retransmissions;
    out.naks += d.naks;
  }
  return out;
}

}  // namespace mr::interop
