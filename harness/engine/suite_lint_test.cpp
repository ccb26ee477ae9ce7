// The suite itself, checked: every test case parses without a diagnostic, is named after
// its tp id, cites only clauses of the catalog and PICS keys the spec defines, and either
// names the mutants it kills or says why it is a pure positive path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/engine/suite_check.h"
#include "harness/engine/suite_runner.h"
#include "harness/script/parser.h"
#include "reference/mutants/mutant.h"

namespace mr::engine {
namespace {

spec::ClauseCatalog catalog() {
  auto c = spec::ClauseCatalog::load("docs/spec/clauses.json");
  EXPECT_TRUE(c) << c.error();
  return c ? *c : spec::ClauseCatalog();
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// What `run` checks of every header (suite_check), and the suite's own rules beside it.
TEST(Suite, EveryTestCaseIsWellFormedAndCitesRealClauses) {
  const auto found = find_test_cases({"testcases"});
  ASSERT_TRUE(found.has_value()) << found.error();
  const std::vector<std::string>& files = *found;
  ASSERT_GE(files.size(), 2U);
  std::vector<script::ParseResult> parsed;
  parsed.reserve(files.size());
  for (const auto& path : files) parsed.push_back(script::parse_file(path));
  check_suite(parsed, catalog());
  for (const auto& p : parsed) {
    SCOPED_TRACE(p.script.path);
    for (const auto& d : p.diagnostics) ADD_FAILURE() << d.to_string();
    const auto& meta = p.script.metadata;
    if (!meta.contains("tp")) continue;
    EXPECT_EQ(std::filesystem::path(p.script.path).stem().string(), meta.at("tp"))
        << "the file is named after its tp id";
    const bool kills = meta.contains("kills") && !meta.at("kills").empty();
    const bool justified = meta.contains("positive-path") && !meta.at("positive-path").empty();
    EXPECT_TRUE(kills || justified) << "needs '# kills: <mutants>' or '# positive-path: <why>'";
  }
}

TEST(Suite, EveryMutantNamesClausesOfTheCatalog) {
  const auto cat = catalog();
  for (const auto& m : mutants::all_mutants()) {
    for (const auto& c : words(std::string(m.clauses))) {
      EXPECT_NE(cat.find(c), nullptr) << m.name << ": clause " << c << " is not in the catalog";
    }
  }
}

}  // namespace
}  // namespace mr::engine
