// File: report_json.h
//
// The results model as report.json's JSON value (docs/report-schema.md,
// harness/report/report.schema.json). Bump kReportSchemaVersion on any incompatible change.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/report/results.h"

namespace mr::report {

inline constexpr int kReportSchemaVersion = 1;

nlohmann::ordered_json to_report_json(const RunResult& run);

}  // namespace mr::report
