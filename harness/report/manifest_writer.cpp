// File: manifest_writer.cpp
//
// manifest.json: what a certification run needs to be reproduced and audited. The harness
// version and commit, the DUT identity, the PICS and PIXIT used, the seed, the SHA-256 of
// every input file, the SHA-256 of every report file written before this one, and the
// doctor report of the DUT's host (harness/doctor) when the run has one; a shard's share and
// the shards a merged run joined.

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
  if (run.shard) manifest["shard"] = shard_json(*run.shard);
  if (!run.merged_from.empty()) {
    nlohmann::ordered_json shards = nlohmann::ordered_json::array();
    for (const MergedShard& m : run.merged_from) {
      shards.push_back(
          {{"index", m.index}, {"directory", m.directory}, {"manifest_sha256", m.manifest_sha256}});
    }
    manifest["merged_from"] = std::move(shards);
  }
  // Absent, not null, when the run has no doctor report (a model built by a test).
  if (!run.doctor.is_null()) manifest["doctor"] = run.doctor;
  return safe_dump(manifest, 2) + "\n";
}

}  // namespace mr::report
