// File: matrix_report.h
//
// The interop matrix's results as files: matrix.json (every cell with its seed, verdict,
// failures, completions, impairments applied, capture and analysis) and matrix.md (a
// summary and one table row per cell: direction x operation x size x MTU x impairment ->
// pass/fail, duration, retransmissions, violations). Pure functions of the MatrixResult.
//
//   write_matrix_report(result, "reports/interop");   // matrix.json, matrix.md
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/interop/matrix_runner.h"
#include "reference/error/expected.h"

namespace mr::interop {

nlohmann::ordered_json matrix_json(const MatrixResult& r);
std::string matrix_markdown(const MatrixResult& r);
// "FAIL rxe-ref/FETCH_ADD/8/mtu1024/none  1.2 ms  ...: requester ..." (progress lines)
std::string cell_line(const CellResult& c);

Expected<void, std::string> write_matrix_report(const MatrixResult& r, const std::string& dir);

}  // namespace mr::interop
