// The suite itself, checked: every test case parses without a diagnostic, is named after
// its tp id, cites only clauses of the catalog and PICS keys the spec defines, and either
// names the mutants it kills or says why it is a pure positive path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness/engine/pics_predicate.h"
#include "harness/engine/suite_runner.h"
#include "harness/script/parser.h"
#include "reference/mutants/mutant.h"

namespace mr::engine {
namespace {

nlohmann::json catalog() {
  std::ifstream in("docs/spec/clauses.json");
  return nlohmann::json::parse(in);
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(Suite, EveryTestCaseIsWellFormedAndCitesRealClauses) {
  const auto cat = catalog();
  std::set<std::string> clauses;
  for (const auto& c : cat["clauses"]) clauses.insert(c["id"].get<std::string>());
  std::map<std::string, bool> features;
  for (const auto& f : cat["pics_features"]) features[f["key"].get<std::string>()] = true;
  const auto files = find_test_cases("testcases");
  ASSERT_GE(files.size(), 2U);
  std::set<std::string> ids;
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    auto parsed = script::parse_file(path);
    for (const auto& d : parsed.diagnostics) ADD_FAILURE() << d.to_string();
    const auto& meta = parsed.script.metadata;
    if (!meta.contains("tp")) continue;
    const std::string tp = meta.at("tp");
    EXPECT_TRUE(ids.insert(tp).second) << "duplicate tp id " << tp;
    EXPECT_EQ(std::filesystem::path(path).stem().string(), tp)
        << "the file is named after its tp id";
    for (const auto& c : words(meta.contains("clause") ? meta.at("clause") : "")) {
      EXPECT_TRUE(clauses.contains(c)) << "clause " << c << " is not in docs/spec/clauses.json";
    }
    if (meta.contains("pics")) {
      auto ok = evaluate_pics(meta.at("pics"), features);
      EXPECT_TRUE(ok) << "pics: " << ok.error();
    }
    const bool kills = meta.contains("kills") && !meta.at("kills").empty();
    const bool justified = meta.contains("positive-path") && !meta.at("positive-path").empty();
    EXPECT_TRUE(kills || justified) << "needs '# kills: <mutants>' or '# positive-path: <why>'";
    if (kills) {
      for (const auto& m : words(meta.at("kills"))) {
        EXPECT_TRUE(mutants::mutant_by_name(m).has_value()) << "kills: no mutant named " << m;
      }
    }
  }
}

TEST(Suite, EveryMutantNamesClausesOfTheCatalog) {
  const auto cat = catalog();
  std::set<std::string> clauses;
  for (const auto& c : cat["clauses"]) clauses.insert(c["id"].get<std::string>());
  for (const auto& m : mutants::all_mutants()) {
    for (const auto& c : words(std::string(m.clauses))) {
      EXPECT_TRUE(clauses.contains(c)) << m.name << ": clause " << c << " is not in the catalog";
    }
  }
}

}  // namespace
}  // namespace mr::engine
