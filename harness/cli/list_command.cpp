#include "harness/cli/list_command.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness/cli/repository_file.h"
#include "harness/engine/pics_predicate.h"
#include "harness/engine/suite_check.h"
#include "harness/engine/suite_runner.h"
#include "harness/script/parser.h"
#include "harness/spec/clause_catalog.h"

namespace mr::cli {
namespace {

struct ListOptions {
  std::string profile;
  bool json = false;
  std::string catalog = repository_file("docs/spec/clauses.json");
  std::string testcases = repository_file("testcases");
};

struct TestInfo {
  std::string tp;
  std::string file;
  bool applicable = true;
};

int run(const ListOptions& o) {
  auto catalog = spec::ClauseCatalog::load(o.catalog);
  if (!catalog) {
    std::fprintf(stderr, "metaroce list: %s\n", catalog.error().c_str());
    return kExitHarnessError;
  }
  std::map<std::string, bool> features;
  if (!o.profile.empty()) {
    auto f = engine::load_pics(repository_file("testcases/profiles/" + o.profile + ".pics.json"));
    if (!f) {
      std::fprintf(stderr, "metaroce list: %s\n", f.error().c_str());
      return kExitHarnessError;
    }
    features = *f;
  }
  std::map<std::string, std::vector<TestInfo>> by_clause;
  int diagnostics = 0;
  std::vector<script::ParseResult> suite;
  const auto files = engine::find_test_cases({o.testcases});
  if (!files) {
    std::fprintf(stderr, "metaroce list: %s\n", files.error().c_str());
    return kExitHarnessError;
  }
  suite.reserve(files->size());
  for (const auto& path : *files) suite.push_back(script::parse_file(path));
  engine::check_suite(suite, *catalog);
  for (const auto& parsed : suite) {
    for (const auto& d : parsed.diagnostics) {
      std::fprintf(stderr, "%s\n", d.to_string().c_str());
      ++diagnostics;
    }
    const auto& meta = parsed.script.metadata;
    TestInfo t{meta.contains("tp") ? meta.at("tp") : parsed.script.path, parsed.script.path, true};
    if (!o.profile.empty() && meta.contains("pics")) {
      auto ok = engine::evaluate_pics(meta.at("pics"), features);
      t.applicable = ok && *ok;
    }
    std::istringstream clauses(meta.contains("clause") ? meta.at("clause") : "");
    for (std::string c; clauses >> c;) by_clause[c].push_back(t);
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  int must_total = 0;
  int must_covered = 0;
  std::vector<std::string> uncovered_must;
  for (const auto& c : catalog->clauses()) {
    const std::string& id = c.id;
    const std::string& level = c.level;
    const std::string& part = c.part;
    const auto& tests = by_clause[id];
    const bool covered =
        std::any_of(tests.begin(), tests.end(), [](const TestInfo& t) { return t.applicable; });
    if (part == "base" && (level == "MUST" || level == "MUST-IF")) {
      ++must_total;
      if (covered) {
        ++must_covered;
      } else {
        uncovered_must.push_back(id);
      }
    }
    nlohmann::ordered_json row = {
        {"clause", id}, {"level", level}, {"part", part}, {"statement", c.statement}};
    row["tests"] = nlohmann::ordered_json::array();
    for (const auto& t : tests)
      row["tests"].push_back({{"tp", t.tp}, {"file", t.file}, {"applicable", t.applicable}});
    out.push_back(row);
  }
  if (o.json) {
    std::cout << nlohmann::ordered_json{{"clauses", out},
                                        {"base_must_total", must_total},
                                        {"base_must_covered", must_covered},
                                        {"base_must_uncovered", uncovered_must}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto& row : out) {
      std::string tps;
      for (const auto& t : row["tests"])
        tps += " " + t["tp"].get<std::string>() + (t["applicable"] ? "" : "(n/a)");
      std::printf("%-10s %-7s %-4s %s\n", row["clause"].get<std::string>().c_str(),
                  row["level"].get<std::string>().c_str(), row["part"].get<std::string>().c_str(),
                  tps.empty() ? " -- no test purpose" : tps.c_str());
    }
    std::printf("\nbase MUST clauses covered: %d of %d\n", must_covered, must_total);
    if (!uncovered_must.empty()) {
      std::printf("uncovered base MUST clauses:");
      for (const auto& id : uncovered_must) std::printf(" %s", id.c_str());
      std::printf("\n");
    }
  }
  return diagnostics == 0 ? kExitOk : kExitHarnessError;
}

}  // namespace

Runner setup_list(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  app.add_option("--profile", o->profile,
                 "mark test purposes the profile's PICS does not make applicable");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o] { return run(*o); };
}

}  // namespace mr::cli
