// File: report_json_reader.h
//
// report.json read back into the results model: what `merge` joins shards from, and what
// `run --balance-from` takes a previous run's test durations from. It is the inverse of
// to_report_json for every field of the model; the derived members (overall, counts, area,
// flaky, coverage) are recomputed by the writers, not read. A report written by another
// schema version, a missing or mistyped member, is an error naming the file and the member's
// path ("reports/a/report.json: tests[3].verdict: expected one of none, pass, ...").
//
//   auto run = read_report_json("reports/shard-1/report.json");
//   if (!run) return Unexpected(run.error());
#pragma once

#include <string>

#include "harness/report/results.h"
#include "reference/error/expected.h"

namespace mr::report {

Expected<RunResult, std::string> read_report_json(const std::string& path);

// The same from a parsed document; `source` names it in errors.
Expected<RunResult, std::string> run_from_report_json(const nlohmann::ordered_json& document,
                                                      const std::string& source);

}  // namespace mr::report
