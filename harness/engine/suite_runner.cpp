#include "harness/engine/suite_runner.h"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "harness/engine/dut_commands.h"
#include "harness/engine/ordered_runs.h"
#include "harness/engine/suite_check.h"
#include "harness/engine/test_runner.h"
#include "harness/report/sha256.h"
#include "harness/script/parser.h"

namespace mr::engine {
namespace {

Expected<nlohmann::ordered_json, std::string> load_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Unexpected(path + ": cannot read");
  try {
    return nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(path + ": " + e.what());
  }
}

std::string iso8601_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

report::TestResult parse_failure(const script::ParseResult& parsed) {
  report::TestResult r;
  r.file = parsed.script.path;
  r.tp_id =
      parsed.script.metadata.contains("tp") ? parsed.script.metadata.at("tp") : parsed.script.path;
  r.verdict = report::Verdict::kError;
  r.reason = parsed.diagnostics.front().to_string();
  for (const auto& d : parsed.diagnostics) {
    // The failure names file and line; the message keeps the column.
    r.failures.push_back({d.file, d.pos.line, "script", "", "",
                          "column " + std::to_string(d.pos.column) + ": " + d.message, nullptr,
                          nullptr});
  }
  return r;
}

}  // namespace

bool filter_selects(const std::string& filter, const std::string& path, const std::string& tp) {
  if (filter.empty()) return true;
  size_t start = 0;
  while (start <= filter.size()) {
    const size_t comma = std::min(filter.find(',', start), filter.size());
    const std::string glob = filter.substr(start, comma - start);
    if (!glob.empty() &&
        (fnmatch(glob.c_str(), tp.c_str(), 0) == 0 || fnmatch(glob.c_str(), path.c_str(), 0) == 0 ||
         path.find(glob) != std::string::npos))
      return true;
    start = comma + 1;
  }
  return false;
}

Expected<std::vector<std::string>, std::string> find_test_cases(
    const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& path : paths) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return Unexpected(path + ": no such file or folder");
    if (fs::is_regular_file(status)) {
      if (fs::path(path).extension() != ".mrt")
        return Unexpected(path + ": not a test case (a test case is a .mrt file)");
      out.push_back(path);
      continue;
    }
    const size_t before = out.size();
    for (auto it = fs::recursive_directory_iterator(path, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".mrt")
        out.push_back(it->path().string());
    }
    if (ec) return Unexpected(path + ": " + ec.message());
    if (out.size() == before) return Unexpected(path + ": no .mrt test cases found");
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> withdraw_part2_claims(std::map<std::string, bool>& features,
                                               const protocol::Capabilities& caps) {
  std::vector<std::string> withdrawn;
  for (auto& [feature, claimed] : features) {
    if (!claimed || !feature.starts_with("ext.")) continue;
    const bool listed = caps.pics.empty() ||
                        std::find(caps.pics.begin(), caps.pics.end(), feature) != caps.pics.end();
    if (!caps.mxcap.empty() && listed) continue;
    claimed = false;
    withdrawn.push_back(feature);
  }
  return withdrawn;
}

Expected<std::map<std::string, bool>, std::string> load_pics(const std::string& path) {
  auto j = load_json(path);
  if (!j) return Unexpected(j.error());
  if (!j->contains("features") || !(*j)["features"].is_object())
    return Unexpected(path + ": features: missing");
  std::map<std::string, bool> out;
  for (auto it = (*j)["features"].begin(); it != (*j)["features"].end(); ++it) {
    if (!it.value().is_boolean())
      return Unexpected(path + ": features." + it.key() + ": expected true or false");
    out[it.key()] = it.value().get<bool>();
  }
  return out;
}

uint64_t repetition_seed(uint64_t seed, int index) {
  if (index == 0) return seed;
  // splitmix64 of (seed, index): neighbouring seeds give unrelated repetition seeds.
  uint64_t z = seed + static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

struct SelectedTest {
  std::string tp;
  script::ParseResult parsed;
};

// What every run of a suite reads and none changes: safe to share between jobs.
struct Suite {
  std::map<std::string, bool> features;
  std::map<std::string, std::string> clause_levels;  // from the catalog: MUST, SHOULD, ...
  std::map<std::string, uint64_t> dut_limits;        // its capabilities' limits
  std::vector<SelectedTest> tests;
};

// Keeps the shard's share of the selected tests; every selected file stays in run.inputs, so
// the shards of one run have the same inputs, which merge checks.
Expected<void, std::string> keep_shard(report::RunResult& run, Suite& suite,
                                       const SuiteOptions& o) {
  std::vector<std::string> selected;
  selected.reserve(suite.tests.size());
  for (const SelectedTest& t : suite.tests) selected.push_back(t.tp);
  const std::vector<size_t> members = shard_members(selected, *o.shard, o.shard_durations);
  const std::string which =
      "--shard " + std::to_string(o.shard->index) + "/" + std::to_string(o.shard->total);
  if (members.empty())
    return Unexpected(which + ": the " + std::to_string(selected.size()) +
                      " selected tests leave this shard none; split them into at most " +
                      std::to_string(selected.size()) + " shards");
  std::vector<SelectedTest> kept;
  kept.reserve(members.size());
  for (size_t k : members) kept.push_back(std::move(suite.tests[k]));
  suite.tests = std::move(kept);
  run.shard = report::ShardInfo{.index = o.shard->index,
                                .total = o.shard->total,
                                .balance = o.shard_balance.empty() ? "count" : o.shard_balance,
                                .selected = std::move(selected)};
  return {};
}

// Fills `run` (everything but its tests) and `suite`.
Expected<void, std::string> prepare(report::RunResult& run, Suite& suite, DutPort& identity,
                                    const Pixit& pixit, const SuiteOptions& o) {
  run.harness_version = "metaroce 0.1.0";
  run.started_at = iso8601_now();
  run.seed = o.seed;
  run.repeat = std::max(1, o.repeat);
  run.profile = std::filesystem::path(o.pics_path).stem().stem().string();
  run.pixit = pixit.raw;
  auto pics_json = load_json(o.pics_path);
  if (!pics_json) return Unexpected(pics_json.error());
  run.pics = *pics_json;
  auto features = load_pics(o.pics_path);
  if (!features) return Unexpected(features.error());
  suite.features = std::move(*features);
  auto catalog = spec::ClauseCatalog::load(o.catalog_path);
  if (!catalog) return Unexpected(catalog.error());
  run.catalog = std::move(*catalog);
  for (const auto& c : run.catalog.clauses()) suite.clause_levels[c.id] = c.level;
  // The DUT's identity for the report: who it is and where, not its whole capability list.
  // A DUT that cannot say (ENOTSUP, a malformed reply) is still tested, without one.
  if (auto caps = dut_client(identity).capabilities()) {
    run.dut["device"] = protocol::to_json(caps->device);
    run.dut["mac"] = caps->mac;
    run.dut["ips"] = caps->ips;
    nlohmann::ordered_json gids = nlohmann::ordered_json::array();
    for (const auto& g : caps->gids) gids.push_back(nlohmann::ordered_json(protocol::to_json(g)));
    run.dut["gids"] = std::move(gids);
    suite.dut_limits = caps->limits;
    const std::vector<std::string> withdrawn = withdraw_part2_claims(suite.features, *caps);
    if (!withdrawn.empty()) run.dut["pics_not_claimed"] = withdrawn;
  }
  auto found = find_test_cases(o.test_paths);
  if (!found) return Unexpected(found.error());
  const std::vector<std::string>& files = *found;
  for (const auto& input : {o.pics_path, o.pixit_path, o.catalog_path}) {
    if (auto h = report::sha256_file(input)) run.inputs[input] = *h;
  }
  // Every file is parsed and checked, selected or not: a duplicate tp id is found whichever
  // of its files the filter selects.
  std::vector<script::ParseResult> parsed;
  parsed.reserve(files.size());
  for (const auto& path : files) parsed.push_back(script::parse_file(path));
  check_suite(parsed, run.catalog);
  for (auto& p : parsed) {
    const std::string& path = p.script.path;
    std::string tp = p.script.metadata.contains("tp") ? p.script.metadata.at("tp") : path;
    if (!filter_selects(o.filter, path, tp)) continue;
    if (auto h = report::sha256_file(path)) run.inputs[path] = *h;
    suite.tests.push_back({std::move(tp), std::move(p)});
  }
  // A run that tests nothing must not look like a passing one.
  if (suite.tests.empty())
    return Unexpected("--filter " + o.filter + " selects none of the " +
                      std::to_string(files.size()) + " test cases it was given");
  if (o.shard) {
    if (auto ok = keep_shard(run, suite, o); !ok) return ok;
  }
  std::filesystem::create_directories(o.out_dir + "/captures");
  return {};
}

// The capture of repetition `rep` (0-based) of a test, relative to the run directory: the
// first keeps the name a run without --repeat gives it.
std::string capture_name(const std::string& tp, int rep) {
  return "captures/" + tp + (rep == 0 ? "" : ".rep" + std::to_string(rep + 1)) + ".pcapng";
}

report::TestResult run_once(const Suite& suite, const SelectedTest& test, int rep, DutPort& port,
                            const Pixit& pixit, const SuiteOptions& o) {
  if (!test.parsed.ok()) return parse_failure(test.parsed);
  TestOptions t;
  t.seed = repetition_seed(o.seed, rep);
  t.pics = suite.features;
  t.clause_levels = suite.clause_levels;
  t.dut_limits = suite.dut_limits;
  const std::string capture = capture_name(test.tp, rep);
  t.capture_path = o.out_dir + "/" + capture;
  report::TestResult result;
  for (int attempt = 1; attempt <= std::max(1, o.max_attempts); ++attempt) {
    result = run_test(test.parsed.script, port, pixit, t);
    result.attempts = attempt;
    if (result.verdict != report::Verdict::kInconc) break;  // only capture loss is rerun
  }
  result.capture = result.verdict == report::Verdict::kNotApplicable ? "" : capture;
  if (!o.keep_passing_captures && result.verdict == report::Verdict::kPass) {
    std::error_code ignored;  // a capture that is not there is as good as removed
    std::filesystem::remove(t.capture_path, ignored);
    result.capture.clear();
  }
  return result;
}

// One test's result from its runs: the fields of the first run with the worst verdict,
// and every run's verdict and seed.
report::TestResult merge_repetitions(std::vector<report::TestResult> runs,
                                     const std::vector<uint64_t>& seeds) {
  size_t shown = 0;
  for (size_t i = 1; i < runs.size(); ++i) {
    if (report::worse(runs[shown].verdict, runs[i].verdict) != runs[shown].verdict) shown = i;
  }
  std::vector<report::Repetition> repetitions;
  for (size_t i = 0; i < runs.size(); ++i) {
    repetitions.push_back({.seed = seeds[i],
                           .verdict = runs[i].verdict,
                           .reason = runs[i].reason,
                           .capture = runs[i].capture,
                           .duration_s = runs[i].duration_s,
                           .attempts = runs[i].attempts});
  }
  report::TestResult merged = std::move(runs[shown]);
  merged.repetitions = std::move(repetitions);
  return merged;
}

using RunOnce = std::function<report::TestResult(const SelectedTest&, int rep)>;

// Runs every repetition of every selected test through `run_once`, up to `jobs` at once,
// and gathers them in the suite's order.
void run_all(report::RunResult& run, const Suite& suite, const SuiteOptions& o, int jobs,
             const RunOnce& run_one) {
  const size_t reps = static_cast<size_t>(run.repeat);
  const size_t total = suite.tests.size() * reps;
  SuiteProgress progress{.done = 0, .total = total, .counts = {}, .current = ""};
  for (report::Verdict v : report::kAllVerdicts) progress.counts[v] = 0;
  auto current = [&](size_t index) { return index < total ? suite.tests[index / reps].tp : ""; };
  progress.current = current(0);
  if (o.on_progress) o.on_progress(progress);

  std::vector<report::TestResult> runs;  // of the test being gathered
  std::vector<uint64_t> seeds;
  size_t gathering = 0;  // the test `runs` belongs to
  auto flush = [&] {
    if (runs.empty()) return;
    auto merged = merge_repetitions(std::move(runs), seeds);
    runs.clear();
    seeds.clear();
    if (o.on_result) o.on_result(merged);
    run.tests.push_back(std::move(merged));
  };
  const auto started = std::chrono::steady_clock::now();
  const bool complete = run_in_order(
      total, jobs,
      [&](size_t index) {
        return run_one(suite.tests[index / reps], static_cast<int>(index % reps));
      },
      [&](size_t index, report::TestResult result) {
        if (index / reps != gathering) flush();
        gathering = index / reps;
        ++progress.done;
        ++progress.counts[result.verdict];
        progress.current = current(index + 1);
        seeds.push_back(repetition_seed(o.seed, static_cast<int>(index % reps)));
        runs.push_back(std::move(result));
        if (index % reps == reps - 1) flush();  // the test's last run: report it now
        if (o.on_progress) o.on_progress(progress);
      },
      o.cancelled);
  flush();
  run.cancelled = !complete;
  run.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

Expected<report::RunResult, std::string> run_suite(DutPort& port, const Pixit& pixit,
                                                   const SuiteOptions& o) {
  if (o.jobs != 1)
    return Unexpected("--jobs " + std::to_string(o.jobs) +
                      ": this DUT is one device on one port; its tests run one at a time");
  report::RunResult run;
  Suite suite;
  if (auto ok = prepare(run, suite, port, pixit, o); !ok) return Unexpected(ok.error());
  run_all(run, suite, o, 1, [&](const SelectedTest& test, int rep) {
    return run_once(suite, test, rep, port, pixit, o);
  });
  return run;
}

Expected<report::RunResult, std::string> run_suite(const PortFactory& fresh_port,
                                                   const Pixit& pixit, const SuiteOptions& o) {
  auto identity = fresh_port(o.seed);
  if (!identity) return Unexpected("the DUT: " + identity.error());
  report::RunResult run;
  Suite suite;
  if (auto ok = prepare(run, suite, **identity, pixit, o); !ok) return Unexpected(ok.error());
  run_all(run, suite, o, std::max(1, o.jobs), [&](const SelectedTest& test, int rep) {
    auto port = fresh_port(repetition_seed(o.seed, rep));
    if (!port) {
      report::TestResult r;
      r.tp_id = test.tp;
      r.file = test.parsed.script.path;
      r.verdict = report::Verdict::kError;
      r.reason = "creating a DUT for this test: " + port.error();
      return r;
    }
    auto result = run_once(suite, test, rep, **port, pixit, o);
    if (o.on_run_done) o.on_run_done(test.tp, **port);
    return result;
  });
  return run;
}

}  // namespace mr::engine
