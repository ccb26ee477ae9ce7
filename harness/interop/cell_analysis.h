// File: cell_analysis.h
//
// What the passive analyzer (harness/analyze) finds in one cell's capture: frames, RoCE
// frames, retransmissions and NAKs each side sent, and the clause violations with who sent
// the offending packet. A cell's verdict does not depend on it; the matrix reports it.
//
//   auto a = analyze_cell_capture("cells/ref-rxe_WRITE_4096_mtu1024_none.pcapng");
//   if (a) std::printf("%llu violations\n", a->violations);
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reference/error/expected.h"

namespace mr::interop {

struct CellAnalysis {
  uint64_t frames = 0;
  uint64_t roce_frames = 0;
  uint64_t retransmissions = 0;  // over every direction
  uint64_t naks = 0;
  uint64_t violations = 0;
  std::map<std::string, uint64_t> violations_by_clause;
  std::vector<std::string> violation_lines;  // the first few, as `metaroce analyze` prints them
};

inline constexpr size_t kViolationLinesKept = 5;

Expected<CellAnalysis, std::string> analyze_cell_capture(const std::string& path);

}  // namespace mr::interop
