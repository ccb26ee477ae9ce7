// File: manifest_writer.cpp
//
// manifest.json: what a certification run needs to be reproduced and audited. The harness
// version and commit, the DUT identity, the PICS and PIXIT used, the seed, the SHA-256 of
// every input file, the SHA-256 of every report file written before this one, and the
// doctor report of the DUT's host (harness/doctor) when the run has one.

#include "harness/report/format.h"
#include "harness/report/report_json.h"
#include "harness/report/writer.h"

namespace mr::report {

std::string render_manifest_json(const RenderContext& ctx) {
  const RunResult& run = ctx.run;
  nlohmann::ordered_json captures = nlohmann::ordered_json::object();
  for (const TestResult& t : run.tests) {
    if (!t.capture.empty()) captures[t.tp_id] = t.capture;
  }
  nlohmann::ordered_json manifest = {
      {"schema_version", run.schema_version},
      {"harness_version", run.harness_version},
      {"harness_commit", run.harness_commit},
      {"harness_commit_source", run.harness_commit_source},
      {"started_at", run.started_at},
      {"dut", run.dut},
      {"profile", run.profile},
      {"pics", run.pics},
      {"pixit", run.pixit},
      {"seed", u64_string(run.seed)},
      {"repeat", run.repeat},
      {"mutants", run.mutants},
      {"options", run.options},
      {"inputs", run.inputs},
      {"outputs", ctx.output_sha256},
      {"captures", captures},
  };
  // Absent, not null, when the run has no doctor report (a model built by a test).
  if (!run.doctor.is_null()) manifest["doctor"] = run.doctor;
  return safe_dump(manifest, 2) + "\n";
}

}  // namespace mr::report
