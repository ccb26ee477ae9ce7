// The console lines of a finished test: every failure names the spec clauses it is against,
// with their short titles from the catalog, so that a failure read on a CI log needs no
// lookup of what the test checks.
#include "harness/cli/result_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace mr::cli {
namespace {

using Json = nlohmann::ordered_json;

spec::ClauseCatalog catalog() {
  auto c = spec::ClauseCatalog::from_json(
      Json{{"clauses",
            {{{"id", "MR-PS-04"},
              {"level", "MUST"},
              {"statement", "A responder executes request packets in PSN order."}},
             {{"id", "MR-PS-05"},
              {"level", "MUST"},
              {"statement",
               "A responder that receives a request packet whose PSN is ahead of its expected "
               "PSN sends one NAK with the PSN sequence error syndrome carrying its ePSN."}}}}},
      "test catalog");
  EXPECT_TRUE(c) << c.error();
  return *c;
}

report::TestResult failed(std::vector<std::string> clauses) {
  report::TestResult r;
  r.tp_id = "RC-PSN-004";
  r.file = "testcases/base/psn/RC-PSN-004.mrt";
  r.verdict = report::Verdict::kFail;
  r.clauses = clauses;
  report::Failure f;
  f.file = r.file;
  f.line = 12;
  f.field = "BTH.psn";
  f.expected = "P+1 = 0x000457 (1111)";
  f.actual = "0x000456 (1110)";
  f.message = "the NAK carries the wrong PSN";
  f.clauses = std::move(clauses);
  r.failures = {f};
  return r;
}

TEST(ResultText, AFailureNamesItsClauseWithItsTitle) {
  EXPECT_EQ(result_text(failed({"MR-PS-04"}), catalog()),
            "FAIL   RC-PSN-004             testcases/base/psn/RC-PSN-004.mrt\n"
            "         testcases/base/psn/RC-PSN-004.mrt:12: BTH.psn: expected P+1 = 0x000457 "
            "(1111), actual 0x000456 (1110) (the NAK carries the wrong PSN) (clause MR-PS-04: A "
            "responder executes request packets in PSN order)\n");
}

TEST(ResultText, SeveralClausesEachWithATitleCutAtAWord) {
  const std::string text = result_text(failed({"MR-PS-04", "MR-PS-05"}), catalog());
  EXPECT_NE(text.find(" (clauses MR-PS-04: A responder executes request packets in PSN order; "
                      "MR-PS-05: A responder that receives a request packet...)\n"),
            std::string::npos)
      << text;
}

TEST(ResultText, AClauseTheCatalogLacksIsShownByItsId) {
  const std::string text = result_text(failed({"MR-XX-01"}), spec::ClauseCatalog{});
  EXPECT_NE(text.find("(the NAK carries the wrong PSN) (clause MR-XX-01)\n"), std::string::npos)
      << text;
}

TEST(ResultText, AHarnessErrorNamesNoClause) {
  report::TestResult r = failed({});
  r.verdict = report::Verdict::kError;
  r.failures[0].field = "";
  r.failures[0].message = "unknown symbol 'Z'";
  EXPECT_EQ(result_text(r, catalog()),
            "ERROR  RC-PSN-004             testcases/base/psn/RC-PSN-004.mrt\n"
            "         testcases/base/psn/RC-PSN-004.mrt:12: unknown symbol 'Z'\n");
}

}  // namespace
}  // namespace mr::cli
