#include "harness/engine/suite_runner.h"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

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
    r.failures.push_back({d.file, d.pos.line, "script", "", "", d.to_string(), nullptr, nullptr});
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

std::vector<std::string> find_test_cases(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".mrt")
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
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

Expected<report::RunResult, std::string> run_suite(DutPort& port, const Pixit& pixit,
                                                   const SuiteOptions& o) {
  report::RunResult run;
  run.harness_version = "metaroce 0.1.0";
  run.started_at = iso8601_now();
  run.seed = o.seed;
  run.profile = std::filesystem::path(o.pics_path).stem().stem().string();
  run.pixit = pixit.raw;
  auto pics_json = load_json(o.pics_path);
  if (!pics_json) return Unexpected(pics_json.error());
  run.pics = *pics_json;
  auto features = load_pics(o.pics_path);
  if (!features) return Unexpected(features.error());
  auto catalog = load_json(o.catalog_path);
  if (!catalog) return Unexpected(catalog.error());
  run.clause_catalog = (*catalog)["clauses"];
  // The DUT's identity for the report: who it is and where, not its whole capability list.
  if (auto caps = port.control({{"op", "capabilities"}})) {
    for (const char* key : {"device", "mac", "ips", "gids"}) {
      if (caps->contains(key)) run.dut[key] = (*caps)[key];
    }
  }

  const auto files = find_test_cases(o.testcases_dir);
  if (files.empty()) return Unexpected(o.testcases_dir + ": no .mrt test cases found");
  for (const auto& input : {o.pics_path, o.pixit_path, o.catalog_path}) {
    if (auto h = report::sha256_file(input)) run.inputs[input] = *h;
  }
  std::filesystem::create_directories(o.out_dir + "/captures");
  const auto started = std::chrono::steady_clock::now();
  for (const auto& path : files) {
    if (o.cancelled && o.cancelled()) {
      run.cancelled = true;
      break;
    }
    auto parsed = script::parse_file(path);
    const std::string tp =
        parsed.script.metadata.contains("tp") ? parsed.script.metadata.at("tp") : path;
    if (!filter_selects(o.filter, path, tp)) continue;
    if (auto h = report::sha256_file(path)) run.inputs[path] = *h;
    report::TestResult result;
    if (!parsed.ok()) {
      result = parse_failure(parsed);
    } else {
      TestOptions t;
      t.seed = o.seed;
      t.pics = *features;
      t.capture_path = o.out_dir + "/captures/" + tp + ".pcapng";
      for (int attempt = 1; attempt <= std::max(1, o.max_attempts); ++attempt) {
        result = run_test(parsed.script, port, pixit, t);
        result.attempts = attempt;
        if (result.verdict != report::Verdict::kInconc) break;  // only capture loss is rerun
      }
      result.capture = "captures/" + tp + ".pcapng";
      if (result.verdict == report::Verdict::kNotApplicable) result.capture.clear();
    }
    if (o.on_result) o.on_result(result);
    run.tests.push_back(std::move(result));
  }
  run.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return run;
}

}  // namespace mr::engine
