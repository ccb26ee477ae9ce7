// File: report.h
//
// How an analysis is printed: one line per violation, a summary per flow, and the JSON
// object of `metaroce analyze --json`:
//   {"file", "frames", "roce_frames", "not_roce", "malformed", "snapped", "violations_total",
//    "tester_violations", "violations_omitted", "flows": [...], "violations": [...],
//    "error"?}
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/analyze/analyzer.h"
#include "harness/analyze/violation.h"

namespace mr::analyze {

// "frame 4 t=1700000000.000123456 flow 198.18.0.2->198.18.0.1 qp 0x000123: MR-PS-05: ..."
std::string violation_line(const Violation& v);
nlohmann::ordered_json violation_json(const Violation& v);

// One line per direction: its packets, messages, retransmissions, NAKs and violations.
void print_flow_summary(std::FILE* out, const Analyzer& a);
nlohmann::ordered_json flows_json(const Analyzer& a);

}  // namespace mr::analyze
