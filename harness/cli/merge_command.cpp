// File: merge_command.cpp
#include "harness/cli/merge_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness/cli/run_command.h"
#include "harness/report/report_json_reader.h"
#include "harness/report/run_directory.h"
#include "harness/report/sha256.h"
#include "harness/report/shard_merge.h"

namespace mr::cli {
namespace {

namespace fs = std::filesystem;

struct MergeOptions {
  std::vector<std::string> shards;
  std::string out;
};

int harness_error(const std::string& message) {
  std::fprintf(stderr, "metaroce merge: %s\n", message.c_str());
  return kExitHarnessError;
}

// A shard's run directory: its report.json and the digest and doctor report of its
// manifest.json (the doctor report is in the manifest only).
Expected<report::ShardRun, std::string> read_shard(const std::string& dir,
                                                   nlohmann::ordered_json& doctor) {
  auto run = report::read_report_json((fs::path(dir) / "report.json").string());
  if (!run) return Unexpected(run.error());
  const std::string manifest_path = (fs::path(dir) / "manifest.json").string();
  auto digest = report::sha256_file(manifest_path);
  if (!digest) return Unexpected(digest.error());
  std::ifstream in(manifest_path);
  try {
    const auto manifest = nlohmann::ordered_json::parse(in);
    if (manifest.is_object() && manifest.contains("doctor")) doctor = manifest["doctor"];
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(manifest_path + ": not JSON: " + e.what());
  }
  return report::ShardRun{.directory = dir, .manifest_sha256 = *digest, .run = std::move(*run)};
}

// Every capture a test or a repetition names, copied from the shard that ran it.
Expected<void, std::string> copy_captures(const std::vector<report::ShardRun>& shards,
                                          const std::string& out) {
  std::error_code ec;
  fs::remove_all(fs::path(out) / "captures", ec);
  for (const report::ShardRun& s : shards) {
    std::set<std::string> names;
    for (const report::TestResult& t : s.run.tests) {
      if (!t.capture.empty()) names.insert(t.capture);
      for (const report::Repetition& r : t.repetitions) {
        if (!r.capture.empty()) names.insert(r.capture);
      }
    }
    for (const std::string& name : names) {
      const fs::path from = fs::path(s.directory) / name;
      const fs::path to = fs::path(out) / name;
      // A test that never reached the DUT (a parse error) names a capture it did not write.
      if (!fs::exists(from, ec)) continue;
      fs::create_directories(to.parent_path(), ec);
      if (ec) return Unexpected(to.parent_path().string() + ": " + ec.message());
      fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
      if (ec) return Unexpected("copying " + from.string() + ": " + ec.message());
    }
  }
  return {};
}

int merge(const MergeOptions& o) {
  std::error_code ec;
  for (const std::string& dir : o.shards) {
    if (fs::exists(o.out, ec) && fs::equivalent(dir, o.out, ec))
      return harness_error("--out " + o.out + " is one of the shards; merge into a new directory");
  }
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec))
    return harness_error("--out " + o.out + ": exists and is not a directory");
  std::vector<report::ShardRun> shards;
  nlohmann::ordered_json doctor;
  for (const std::string& dir : o.shards) {
    nlohmann::ordered_json shard_doctor;
    auto shard = read_shard(dir, shard_doctor);
    if (!shard) return harness_error(shard.error());
    if (doctor.is_null()) doctor = std::move(shard_doctor);
    shards.push_back(std::move(*shard));
  }
  auto merged = report::merge_shards(shards);
  if (!merged) return harness_error(merged.error());
  merged->doctor = std::move(doctor);
  if (auto ok = copy_captures(shards, o.out); !ok) return harness_error(ok.error());
  if (auto ok = report::write_run_directory(*merged, o.out); !ok)
    return harness_error("writing the report: " + ok.error());
  std::printf("metaroce merge: %zu shards, %zu tests\n", shards.size(), merged->tests.size());
  print_summary(*merged, o.out);
  const std::string fail_on = merged->options.is_object() && merged->options.contains("fail_on") &&
                                      merged->options["fail_on"].is_string()
                                  ? merged->options["fail_on"].get<std::string>()
                                  : "";
  return exit_code(*merged, fail_on);
}

}  // namespace

Runner setup_merge(CLI::App& app) {
  auto o = std::make_shared<MergeOptions>();
  app.add_option("shards", o->shards, "the run directory of every shard (run --shard I/N)")
      ->required();
  app.add_option("--out", o->out, "run directory for the merged reports")->required();
  return [o] { return merge(*o); };
}

}  // namespace mr::cli
