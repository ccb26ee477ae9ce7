// File: report_json.h
//
// The results model as report.json's JSON value (docs/report-schema.md,
// harness/report/report.schema.json). Bump kReportSchemaVersion on any incompatible change.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/report/results.h"

namespace mr::report {

// 2: seeds are decimal strings (they were numbers).
inline constexpr int kReportSchemaVersion = 2;

// A 64-bit value (a seed) as its decimal string: a JSON number above 2^53 loses digits in
// jq and JavaScript, and a seed read back from a report must reproduce the run.
inline std::string u64_string(uint64_t v) { return std::to_string(v); }

nlohmann::ordered_json to_report_json(const RunResult& run);
// report.json's (and manifest.json's) "shard" member.
nlohmann::ordered_json shard_json(const ShardInfo& shard);

}  // namespace mr::report
