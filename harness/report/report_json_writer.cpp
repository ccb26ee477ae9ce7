// File: report_json_writer.cpp
//
// report.json: every field of the results model, plus what the other reports derive from it
// (overall verdict, counts, each test's area, the clause coverage), so that a tool reading
// report.json never has to recompute them.
#include <cmath>

#include "harness/report/coverage.h"
#include "harness/report/format.h"
#include "harness/report/report_json.h"
#include "harness/report/writer.h"

namespace mr::report {
namespace {

using Json = nlohmann::ordered_json;

// JSON has no NaN or infinity; nlohmann would write null where the schema says number.
double finite(double d) { return std::isfinite(d) ? d : 0.0; }

Json failure_json(const Failure& f) {
  return Json{{"file", f.file},
              {"line", f.line},
              {"field", f.field},
              {"expected", f.expected},
              {"actual", f.actual},
              {"message", f.message},
              {"clauses", f.clauses},
              {"expected_packet", f.expected_packet},
              {"actual_packet", f.actual_packet},
              {"packet", f.packet == 0 ? Json(nullptr) : Json(f.packet)}};
}

Json packet_json(const PacketRecord& p) {
  return Json{{"t_ns", p.t_ns},
              {"from_tester", p.from_tester},
              {"summary", p.summary},
              {"script_ref", p.script_ref},
              {"decoded", p.decoded}};
}

Json path_json(const PathTally& p) {
  return Json{{"from_tester", p.from_tester},
              {"plane", p.plane},
              {"ev", p.ev},
              {"packets", p.packets},
              {"retransmissions", p.retransmissions},
              {"dropped", p.dropped}};
}

Json repetition_json(const Repetition& r) {
  return Json{
      {"seed", u64_string(r.seed)}, {"verdict", to_string(r.verdict)},    {"reason", r.reason},
      {"capture", r.capture},       {"duration_s", finite(r.duration_s)}, {"attempts", r.attempts}};
}

Json test_json(const TestResult& t) {
  Json failures = Json::array();
  for (const Failure& f : t.failures) failures.push_back(failure_json(f));
  Json packets = Json::array();
  for (const PacketRecord& p : t.packets) packets.push_back(packet_json(p));
  Json repetitions = Json::array();
  for (const Repetition& r : t.repetitions) repetitions.push_back(repetition_json(r));
  Json paths = Json::array();
  for (const PathTally& p : t.paths) paths.push_back(path_json(p));
  return Json{{"tp_id", t.tp_id},
              {"file", t.file},
              {"area", area_of(t.file)},
              {"purpose", t.purpose},
              {"group", t.group},
              {"clauses", t.clauses},
              {"pics", t.pics},
              {"verdict", to_string(t.verdict)},
              {"reason", t.reason},
              {"failures", std::move(failures)},
              {"packets", std::move(packets)},
              {"paths", std::move(paths)},
              {"capture", t.capture},
              {"duration_s", finite(t.duration_s)},
              {"attempts", t.attempts},
              {"repetitions", std::move(repetitions)},
              {"flaky", t.flaky()}};
}

Json coverage_json(const RunResult& run) {
  Json out = Json::array();
  for (const ClauseCoverage& c : clause_coverage(run)) {
    Json tests = Json::array();
    for (const TestResult* t : c.tests) tests.push_back(t->tp_id);
    out.push_back(Json{{"id", c.id},
                       {"level", c.level},
                       {"in_catalog", c.in_catalog},
                       {"covered", c.covered()},
                       {"tests", std::move(tests)},
                       {"verdict", to_string(c.verdict)}});
  }
  return out;
}

}  // namespace

nlohmann::ordered_json shard_json(const ShardInfo& s) {
  return Json{
      {"index", s.index}, {"total", s.total}, {"balance", s.balance}, {"selected", s.selected}};
}

nlohmann::ordered_json to_report_json(const RunResult& run) {
  Json counts = Json::object();
  for (const auto& [verdict, n] : run.counts()) counts[std::string(to_string(verdict))] = n;
  Json tests = Json::array();
  for (const TestResult& t : run.tests) tests.push_back(test_json(t));
  Json out{{"schema_version", run.schema_version},
           {"harness_version", run.harness_version},
           {"harness_commit", run.harness_commit},
           {"harness_commit_source", run.harness_commit_source},
           {"started_at", run.started_at},
           {"duration_s", finite(run.duration_s)},
           {"cancelled", run.cancelled},
           {"overall", to_string(run.overall())},
           {"counts", std::move(counts)},
           {"dut", run.dut},
           {"profile", run.profile},
           {"pics", run.pics},
           {"pixit", run.pixit},
           {"seed", u64_string(run.seed)},
           {"repeat", run.repeat},
           {"mutants", run.mutants},
           {"options", run.options},
           {"inputs", run.inputs},
           {"tests", std::move(tests)},
           {"coverage", coverage_json(run)},
           {"clause_catalog", run.catalog.clauses_json()}};
  // Absent for a whole run, so that a merge of shards is byte for byte a whole run's report.
  if (run.shard) out["shard"] = shard_json(*run.shard);
  return out;
}

std::string render_report_json(const RenderContext& ctx) {
  return safe_dump(to_report_json(ctx.run), 2) + "\n";
}

}  // namespace mr::report
