// File: shard_merge.cpp
#include "harness/report/shard_merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "harness/report/format.h"

namespace mr::report {
namespace {

using Json = nlohmann::ordered_json;

// A member two shards must agree on, as text for the message.
struct Agreed {
  const char* member;
  std::string (*value)(const RunResult&);
};

std::string dump(const Json& j) { return safe_dump(j); }

// Where a DUT is (its station's addresses) may differ between shards run on several stations
// of one device model; what it is (the device: vendor, model, firmware) may not.
Json without(Json j, std::initializer_list<const char*> keys) {
  if (j.is_object()) {
    for (const char* k : keys) j.erase(k);
  }
  return j;
}
std::string texts(const std::vector<std::string>& v) { return dump(Json(v)); }

// What makes two shards parts of one run; digests stand for files (the suite's test cases,
// the catalog, PICS and PIXIT), so a test case edited between two shards is caught.
constexpr Agreed kAgreed[] = {
    {"harness_version", [](const RunResult& r) { return r.harness_version; }},
    {"harness_commit", [](const RunResult& r) { return r.harness_commit; }},
    {"dut",
     [](const RunResult& r) {
       return dump(without(r.dut, {"mac", "ips", "gids"}));
     }},
    {"profile", [](const RunResult& r) { return r.profile; }},
    {"pics", [](const RunResult& r) { return dump(r.pics); }},
    {"pixit", [](const RunResult& r) { return dump(r.pixit); }},
    {"seed", [](const RunResult& r) { return std::to_string(r.seed); }},
    {"repeat", [](const RunResult& r) { return std::to_string(r.repeat); }},
    {"mutants", [](const RunResult& r) { return texts(r.mutants); }},
    {"options", [](const RunResult& r) { return dump(without(r.options, {"pixit_from_dut"})); }},
    {"inputs", [](const RunResult& r) { return dump(Json(r.inputs)); }},
    {"clause_catalog", [](const RunResult& r) { return dump(r.catalog.clauses_json()); }},
    {"shard.total", [](const RunResult& r) { return std::to_string(r.shard->total); }},
    {"shard.balance", [](const RunResult& r) { return r.shard->balance; }},
    {"shard.selected", [](const RunResult& r) { return texts(r.shard->selected); }},
};

// A long value cut for a one-line message; the member's name says where to look.
std::string cut(const std::string& s) { return s.size() <= 120 ? s : s.substr(0, 117) + "..."; }

Expected<void, std::string> check_each(const std::vector<ShardRun>& shards) {
  if (shards.empty()) return Unexpected(std::string("no shards to merge"));
  for (const ShardRun& s : shards) {
    if (!s.run.shard)
      return Unexpected(s.directory +
                        ": not a shard (its report.json has no \"shard\"): a whole run needs no "
                        "merge");
    if (s.run.cancelled)
      return Unexpected(s.directory + ": shard " + std::to_string(s.run.shard->index) + "/" +
                        std::to_string(s.run.shard->total) +
                        " was interrupted before its last test: run it again");
  }
  return {};
}

Expected<void, std::string> check_agreement(const std::vector<ShardRun>& shards) {
  const ShardRun& first = shards.front();
  for (const ShardRun& s : shards) {
    for (const Agreed& a : kAgreed) {
      const std::string mine = a.value(s.run);
      const std::string theirs = a.value(first.run);
      if (mine != theirs)
        return Unexpected("shards of different runs: " + std::string(a.member) + " is " +
                          cut(theirs) + " in " + first.directory + " but " + cut(mine) + " in " +
                          s.directory);
    }
  }
  return {};
}

// Each index once and all of them there.
Expected<void, std::string> check_indices(const std::vector<ShardRun>& shards) {
  const int total = shards.front().run.shard->total;
  std::map<int, const ShardRun*> by_index;
  for (const ShardRun& s : shards) {
    auto [it, fresh] = by_index.emplace(s.run.shard->index, &s);
    if (!fresh)
      return Unexpected("shard " + std::to_string(s.run.shard->index) + "/" +
                        std::to_string(total) + " is given twice: " + it->second->directory +
                        " and " + s.directory);
  }
  std::string missing;
  for (int i = 1; i <= total; ++i) {
    if (!by_index.contains(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (!missing.empty())
    return Unexpected("shards missing: " + missing + " of " + std::to_string(total) +
                      " (merge needs every shard of the run)");
  return {};
}

// The shards' tests, each selected test exactly once, in suite order.
Expected<std::vector<TestResult>, std::string> tests_in_suite_order(std::vector<ShardRun>& shards) {
  const std::vector<std::string>& selected = shards.front().run.shard->selected;
  const std::set<std::string> wanted(selected.begin(), selected.end());
  std::map<std::string, std::pair<TestResult, const ShardRun*>> found;
  for (ShardRun& s : shards) {
    for (TestResult& t : s.run.tests) {
      if (!wanted.contains(t.tp_id))
        return Unexpected(s.directory + ": test " + t.tp_id +
                          " is not among the tests its shards were split from");
      const std::string tp = t.tp_id;
      auto [it, fresh] = found.try_emplace(tp, std::move(t), &s);
      if (!fresh)
        return Unexpected("test " + tp + " was run by two shards: " + it->second.second->directory +
                          " and " + s.directory);
    }
  }
  std::vector<TestResult> out;
  out.reserve(selected.size());
  for (const std::string& tp : selected) {
    auto it = found.find(tp);
    if (it == found.end())
      return Unexpected("test " + tp + " was selected but no shard has its result");
    out.push_back(std::move(it->second.first));
  }
  return out;
}

}  // namespace

Expected<RunResult, std::string> merge_shards(std::vector<ShardRun> shards) {
  if (auto ok = check_each(shards); !ok) return Unexpected(ok.error());
  if (auto ok = check_agreement(shards); !ok) return Unexpected(ok.error());
  if (auto ok = check_indices(shards); !ok) return Unexpected(ok.error());
  std::sort(shards.begin(), shards.end(), [](const ShardRun& a, const ShardRun& b) {
    return a.run.shard->index < b.run.shard->index;
  });
  auto tests = tests_in_suite_order(shards);
  if (!tests) return Unexpected(tests.error());

  RunResult merged = shards.front().run;
  merged.tests = std::move(*tests);
  merged.shard.reset();
  merged.merged_from.clear();
  for (const ShardRun& s : shards) {
    // ISO 8601 UTC strings of one format order as text.
    if (s.run.started_at < merged.started_at) merged.started_at = s.run.started_at;
    merged.duration_s = std::max(merged.duration_s, s.run.duration_s);
    merged.merged_from.push_back({.index = s.run.shard->index,
                                  .directory = s.directory,
                                  .manifest_sha256 = s.manifest_sha256,
                                  .dut = s.run.dut});
  }
  return merged;
}

}  // namespace mr::report
