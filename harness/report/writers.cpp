// File: writers.cpp
//
// The table of report writers. Adding a report file is one line here and one file beside.
#include <array>

#include "harness/report/writer.h"

namespace mr::report {
namespace {

constexpr std::array kWriters = {
    Writer{"report.json", "every field of the results model, versioned", render_report_json},
    Writer{"junit.xml", "one testsuite per area, for CI", render_junit_xml},
    Writer{"index.html", "clause matrix, ladder diagrams, expected vs actual", render_index_html},
    Writer{"summary.md", "counts, failures, uncovered MUST clauses, for a PR or ticket",
           render_summary_md},
    // Last: it lists the SHA-256 of every file above.
    Writer{"manifest.json", "what is needed to reproduce and audit the run", render_manifest_json},
};

}  // namespace

std::span<const Writer> writers() { return kWriters; }

}  // namespace mr::report
