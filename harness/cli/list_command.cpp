#include "harness/cli/list_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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

// Every error of list: one line on stderr, exit 2.
int list_error(const std::string& message) {
  std::fprintf(stderr, "metaroce list: %s\n", message.c_str());
  return kExitHarnessError;
}

// The profile's PICS features; none without --profile.
Expected<std::map<std::string, bool>, std::string> load_features(const ListOptions& o) {
  if (o.profile.empty()) return std::map<std::string, bool>{};
  return engine::load_pics(repository_file("testcases/profiles/" + o.profile + ".pics.json"));
}

// The suite's test purposes by the clauses they name, and how many diagnostics the suite
// has (each printed on stderr as it is found).
struct SuiteIndex {
  std::map<std::string, std::vector<TestInfo>> by_clause;
  int diagnostics = 0;
};

Expected<SuiteIndex, std::string> index_suite(const ListOptions& o,
                                              const spec::ClauseCatalog& catalog,
                                              const std::map<std::string, bool>& features) {
  const auto files = engine::find_test_cases({o.testcases});
  if (!files) return Unexpected(files.error());
  std::vector<script::ParseResult> suite;
  suite.reserve(files->size());
  for (const auto& path : *files) suite.push_back(script::parse_file(path));
  engine::check_suite(suite, catalog);
  SuiteIndex index;
  for (const auto& parsed : suite) {
    for (const auto& d : parsed.diagnostics) {
      std::fprintf(stderr, "%s\n", d.to_string().c_str());
      ++index.diagnostics;
    }
    const auto& meta = parsed.script.metadata;
    TestInfo t{meta.contains("tp") ? meta.at("tp") : parsed.script.path, parsed.script.path, true};
    if (!o.profile.empty() && meta.contains("pics")) {
      auto ok = engine::evaluate_pics(meta.at("pics"), features);
      t.applicable = ok && *ok;
    }
    std::istringstream clauses(meta.contains("clause") ? meta.at("clause") : "");
    for (std::string c; clauses >> c;) index.by_clause[c].push_back(t);
  }
  return index;
}

// Every clause of the catalog, in its order, with its tests; and the base MUST clauses that
// an applicable test covers.
// MUST and MUST-IF clauses of one part of the spec (Part I "base", Part II "ext").
struct PartCoverage {
  int must_total = 0;
  int must_covered = 0;
  std::vector<std::string> uncovered_must;
  // Clauses whose own PICS predicate the profile does not meet (MR-CC-06 is for a device
  // that is not a reaction point): neither covered nor uncovered for that device.
  std::vector<std::string> not_applicable_must;
};

struct Coverage {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  PartCoverage base;
  PartCoverage ext;
};

// Whether a clause's own PICS predicate (catalog syntax: && || !) holds for the profile. Without
// a profile, or when the predicate names a key the profile does not define, it applies.
bool clause_applies(const spec::Clause& c, const std::map<std::string, bool>& features) {
  if (features.empty() || c.pics.empty()) return true;
  std::string words;
  for (size_t i = 0; i < c.pics.size(); ++i) {
    if (c.pics.compare(i, 2, "&&") == 0 || c.pics.compare(i, 2, "||") == 0) {
      words += c.pics[i] == '&' ? " and " : " or ";
      ++i;
    } else if (c.pics[i] == '!') {
      words += " not ";
    } else {
      words += c.pics[i];
    }
  }
  auto holds = engine::evaluate_pics(words, features);
  return !holds || *holds;
}

Coverage coverage(const spec::ClauseCatalog& catalog,
                  const std::map<std::string, std::vector<TestInfo>>& by_clause,
                  const std::map<std::string, bool>& features) {
  static const std::vector<TestInfo> kNone;
  Coverage cov;
  for (const auto& c : catalog.clauses()) {
    const auto found = by_clause.find(c.id);
    const auto& tests = found != by_clause.end() ? found->second : kNone;
    const bool covered =
        std::any_of(tests.begin(), tests.end(), [](const TestInfo& t) { return t.applicable; });
    if ((c.level == "MUST" || c.level == "MUST-IF") && !clause_applies(c, features)) {
      (c.part == "base" ? cov.base : cov.ext).not_applicable_must.push_back(c.id);
    } else if (c.level == "MUST" || c.level == "MUST-IF") {
      PartCoverage& part = c.part == "base" ? cov.base : cov.ext;
      ++part.must_total;
      if (covered) {
        ++part.must_covered;
      } else {
        part.uncovered_must.push_back(c.id);
      }
    }
    nlohmann::ordered_json row = {
        {"clause", c.id}, {"level", c.level}, {"part", c.part}, {"statement", c.statement}};
    row["tests"] = nlohmann::ordered_json::array();
    for (const auto& t : tests)
      row["tests"].push_back({{"tp", t.tp}, {"file", t.file}, {"applicable", t.applicable}});
    cov.rows.push_back(row);
  }
  return cov;
}

void print_json(const Coverage& cov) {
  std::cout << nlohmann::ordered_json{{"clauses", cov.rows},
                                      {"base_must_total", cov.base.must_total},
                                      {"base_must_covered", cov.base.must_covered},
                                      {"base_must_uncovered", cov.base.uncovered_must},
                                      {"base_must_not_applicable", cov.base.not_applicable_must},
                                      {"ext_must_total", cov.ext.must_total},
                                      {"ext_must_covered", cov.ext.must_covered},
                                      {"ext_must_uncovered", cov.ext.uncovered_must},
                                      {"ext_must_not_applicable", cov.ext.not_applicable_must}}
                   .dump(2)
            << "\n";
}

void print_table(const Coverage& cov) {
  for (const auto& row : cov.rows) {
    std::string tps;
    for (const auto& t : row["tests"])
      tps += " " + t["tp"].get<std::string>() + (t["applicable"] ? "" : "(n/a)");
    std::printf("%-10s %-7s %-4s %s\n", row["clause"].get<std::string>().c_str(),
                row["level"].get<std::string>().c_str(), row["part"].get<std::string>().c_str(),
                tps.empty() ? " -- no test purpose" : tps.c_str());
  }
  std::printf("\n");
  for (const auto& [name, part] : {std::pair{"base", &cov.base}, std::pair{"ext", &cov.ext}}) {
    std::printf("%s MUST clauses covered: %d of %d", name, part->must_covered, part->must_total);
    // A few are named; a profile without a whole area (rxe: no Part II) gets the count.
    const auto& na = part->not_applicable_must;
    if (!na.empty() && na.size() <= 8) {
      std::printf("; the profile's PICS does not make");
      for (const auto& id : na) std::printf(" %s", id.c_str());
      std::printf(" apply");
    } else if (!na.empty()) {
      std::printf("; %zu the profile's PICS does not make apply (--json lists them)", na.size());
    }
    std::printf("\n");
    if (part->uncovered_must.empty()) continue;
    std::printf("uncovered %s MUST clauses:", name);
    for (const auto& id : part->uncovered_must) std::printf(" %s", id.c_str());
    std::printf("\n");
  }
}

int run(const ListOptions& o) {
  auto catalog = spec::ClauseCatalog::load(o.catalog);
  if (!catalog) return list_error(catalog.error());
  auto features = load_features(o);
  if (!features) return list_error(features.error());
  auto index = index_suite(o, *catalog, *features);
  if (!index) return list_error(index.error());
  const Coverage cov = coverage(*catalog, index->by_clause, *features);
  if (o.json) {
    print_json(cov);
  } else {
    print_table(cov);
  }
  // A test case with a diagnostic is a harness error, even though the listing is printed.
  return index->diagnostics == 0 ? kExitOk : kExitHarnessError;
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
