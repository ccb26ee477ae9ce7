#include "harness/engine/suite_check.h"

#include <gtest/gtest.h>

namespace mr::engine {
namespace {

std::vector<script::ParseResult> suite(
    std::initializer_list<std::pair<const char*, std::string>> files) {
  std::vector<script::ParseResult> out;
  for (const auto& [path, header] : files)
    out.push_back(script::parse_script(header + "# purpose: p\n", path));
  return out;
}

spec::ClauseCatalog catalog() {
  auto c = spec::ClauseCatalog::load("docs/spec/clauses.json");
  EXPECT_TRUE(c) << c.error();
  return *c;
}

std::string all(const script::ParseResult& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += d.to_string() + "\n";
  return s;
}

TEST(SuiteCheck, AHeaderThatNamesRealThingsHasNoDiagnostic) {
  auto s = suite({{"a.mrt",
                   "# tp: X-1  clause: MR-PS-05 MR-AK-01\n# pics: rc.send and rc.read  group: BV\n"
                   "# kills: wrong-msn\n"}});
  check_suite(s, catalog());
  EXPECT_TRUE(s[0].ok()) << all(s[0]);
}

TEST(SuiteCheck, AnUnknownClauseIsRefusedAtItsColumnWithTheNearestId) {
  auto s = suite({{"a.mrt", "# tp: X-1  clause: MR-PS-05 MR-PS-5\n"}});
  check_suite(s, catalog());
  ASSERT_EQ(s[0].diagnostics.size(), 1U) << all(s[0]);
  EXPECT_EQ(s[0].diagnostics[0].to_string(),
            "a.mrt:1:20: clause MR-PS-5 is not in the clause catalog (did you mean 'MR-PS-05'?)");
}

TEST(SuiteCheck, UnknownMutantsGroupsAndPicsKeysAreRefused) {
  auto s = suite({{"a.mrt",
                   "# tp: X-1  clause: MR-PS-05\n# group: BX  pics: rc.sned\n"
                   "# kills: wrong-msm\n"}});
  check_suite(s, catalog());
  const std::string d = all(s[0]);
  ASSERT_EQ(s[0].diagnostics.size(), 3U) << d;
  EXPECT_NE(d.find("a.mrt:2:10: group BX is not BV"), std::string::npos) << d;
  EXPECT_NE(d.find("a.mrt:2:20: pics: unknown PICS feature 'rc.sned'"), std::string::npos) << d;
  EXPECT_NE(d.find("a.mrt:3:10: kills: no mutant named wrong-msm (did you mean 'wrong-msn'?)"),
            std::string::npos)
      << d;
}

TEST(SuiteCheck, ADuplicateTpIdIsAnErrorInEveryFileThatClaimsIt) {
  auto s = suite({{"a.mrt", "# tp: X-1  clause: MR-PS-05\n"},
                  {"b.mrt", "# tp: X-2  clause: MR-PS-05\n"},
                  {"c.mrt", "# tp: X-1  clause: MR-PS-05\n"}});
  check_suite(s, catalog());
  ASSERT_EQ(s[0].diagnostics.size(), 1U);
  EXPECT_EQ(s[0].diagnostics[0].to_string(), "a.mrt:1:7: tp X-1 is also the tp of c.mrt");
  EXPECT_TRUE(s[1].ok());
  ASSERT_EQ(s[2].diagnostics.size(), 1U);
  EXPECT_EQ(s[2].diagnostics[0].to_string(), "c.mrt:1:7: tp X-1 is also the tp of a.mrt");
}

}  // namespace
}  // namespace mr::engine
