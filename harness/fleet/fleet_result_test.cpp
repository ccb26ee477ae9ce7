#include "harness/fleet/fleet_result.h"

#include <gtest/gtest.h>

#include <string>

namespace mr::fleet {
namespace {

using Json = nlohmann::json;

FleetRow row(const std::string& name) {
  return FleetRow{name, "", "reference", "", "", {}, "", ""};
}

TaskStatus status(const std::string& state, std::optional<int> exit_code = std::nullopt) {
  TaskStatus s;
  s.state = state;
  s.host = "host-1";
  s.started_at = "2026-12-05T14:00:00Z";
  s.run_exit = exit_code;
  s.signal = state == kStateKilled ? "SIGTERM" : "";
  return s;
}

// A report.json with one test per clause: {clause, verdict}.
Json report(const std::vector<std::pair<std::string, std::string>>& clauses) {
  Json r{{"overall", "pass"},
         {"counts", {{"pass", 0}, {"fail", 0}}},
         {"tests", Json::array()},
         {"coverage", Json::array()}};
  int i = 0;
  for (const auto& [clause, verdict] : clauses) {
    r["tests"].push_back({{"tp_id", "TP-" + std::to_string(++i)},
                          {"area", "base/ack"},
                          {"verdict", verdict},
                          {"clauses", {clause}},
                          {"reason", verdict == "pass" ? "" : "AETH.msn <differs>"}});
    r["coverage"].push_back({{"id", clause}, {"covered", true}, {"verdict", verdict}});
    r["counts"][verdict] = r["counts"].value(verdict, 0) + 1;
    if (verdict == "fail") r["overall"] = "fail";
  }
  r["coverage"].push_back({{"id", "MR-UNCOVERED"}, {"covered", false}, {"verdict", "none"}});
  return r;
}

const Json kPassing = report({{"MR-AK-01", "pass"}, {"MR-AK-03", "pass"}});

TEST(NodeResult, NothingWithoutAFinishedReportIsAPass) {
  const NodeResult never = judge_node(0, row("a"), std::nullopt, std::nullopt, "");
  EXPECT_EQ(never.verdict, Verdict::kError);
  EXPECT_NE(never.reason.find("never ran"), std::string::npos);

  const NodeResult running = judge_node(0, row("a"), status(kStateRunning), kPassing, "");
  EXPECT_EQ(running.verdict, Verdict::kInconc);
  EXPECT_NE(running.reason.find("never finished"), std::string::npos);

  const NodeResult killed = judge_node(0, row("a"), status(kStateKilled), std::nullopt, "");
  EXPECT_EQ(killed.verdict, Verdict::kInconc);
  EXPECT_NE(killed.reason.find("killed by SIGTERM"), std::string::npos);

  const NodeResult no_report = judge_node(0, row("a"), status(kStateFinished, 2), std::nullopt, "");
  EXPECT_EQ(no_report.verdict, Verdict::kError);
  EXPECT_NE(no_report.reason.find("exited 2 without a report.json"), std::string::npos);

  const NodeResult exit2 = judge_node(0, row("a"), status(kStateFinished, 2), kPassing, "");
  EXPECT_EQ(exit2.verdict, Verdict::kError);

  const NodeResult unreadable =
      judge_node(0, row("a"), status(kStateFinished, 0), std::nullopt, "x.json: cannot read");
  EXPECT_EQ(unreadable.verdict, Verdict::kError);
  EXPECT_EQ(unreadable.reason, "x.json: cannot read");
}

TEST(NodeResult, AFinishedReportGivesItsVerdictCountsAndClauses) {
  const NodeResult n = judge_node(3, row("m"), status(kStateFinished, 1),
                                  report({{"MR-AK-01", "pass"}, {"MR-AK-03", "fail"}}), "");
  EXPECT_EQ(n.verdict, Verdict::kFail);
  EXPECT_EQ(n.reason, "");
  EXPECT_EQ(n.counts.at("fail"), 1);
  ASSERT_EQ(n.tests.size(), 2U);
  EXPECT_EQ(n.tests[1].verdict, Verdict::kFail);
  EXPECT_EQ(n.failing_clauses, std::vector<std::string>{"MR-AK-03"});
  EXPECT_FALSE(n.clause_verdicts.contains("MR-UNCOVERED"));
  EXPECT_EQ(n.folder, "nodes/m");
}

FleetResult four_nodes() {
  std::vector<NodeResult> nodes;
  nodes.push_back(judge_node(0, row("ok-1"), status(kStateFinished, 0), kPassing, ""));
  nodes.push_back(judge_node(1, row("ok-2"), status(kStateFinished, 0), kPassing, ""));
  nodes.push_back(judge_node(2, row("never"), std::nullopt, std::nullopt, ""));
  nodes.push_back(judge_node(3, row("mut<ant>"), status(kStateFinished, 1),
                             report({{"MR-AK-01", "pass"}, {"MR-AK-03", "fail"}}), ""));
  nodes.push_back(judge_node(4, row("ok-3"), status(kStateFinished, 0), kPassing, ""));
  return make_fleet_result("rack", std::move(nodes));
}

TEST(FleetResult, FailingNodesComeFirstAndOutliersAreNamed) {
  const FleetResult f = four_nodes();
  ASSERT_EQ(f.nodes.size(), 5U);
  EXPECT_EQ(f.nodes[0].planned.name, "mut<ant>");  // fail before error
  EXPECT_EQ(f.nodes[1].planned.name, "never");
  EXPECT_EQ(f.nodes[2].planned.name, "ok-1");  // then fleet file order
  EXPECT_EQ(f.nodes[4].planned.name, "ok-3");
  EXPECT_EQ(f.clauses, (std::vector<std::string>{"MR-AK-01", "MR-AK-03"}));
  EXPECT_EQ(f.majority.at("MR-AK-03"), Verdict::kPass);
  EXPECT_EQ(f.outlier_clauses.at("mut<ant>"), std::vector<std::string>{"MR-AK-03"});
  EXPECT_FALSE(f.outlier_clauses.contains("ok-1"));
  EXPECT_FALSE(f.all_passed());
  EXPECT_EQ(f.overall(), Verdict::kError);
}

TEST(FleetResult, APassingOutlierComesBeforeThePlainPasses) {
  std::vector<NodeResult> nodes;
  const Json na = report({{"MR-AK-01", "pass"}, {"MR-AK-03", "not-applicable"}});
  nodes.push_back(judge_node(0, row("a"), status(kStateFinished, 0), kPassing, ""));
  nodes.push_back(judge_node(1, row("b"), status(kStateFinished, 0), kPassing, ""));
  nodes.push_back(judge_node(2, row("odd"), status(kStateFinished, 0), na, ""));
  const FleetResult f = make_fleet_result("r", std::move(nodes));
  EXPECT_EQ(f.nodes[0].planned.name, "odd");
  EXPECT_TRUE(f.all_passed());
}

TEST(FleetReport, HtmlListsTheFailingNodeFirstEscaped) {
  const std::string html = render_fleet_html(four_nodes());
  const size_t mutant = html.find("mut&lt;ant&gt;");
  ASSERT_NE(mutant, std::string::npos);
  EXPECT_LT(mutant, html.find(">ok-1<"));
  EXPECT_LT(mutant, html.find(">never<"));
  EXPECT_EQ(html.find("mut<ant>"), std::string::npos);
  EXPECT_NE(html.find("outlier"), std::string::npos);
  // No node has its own index.html here: no link to one.
  EXPECT_EQ(html.find("run/index.html"), std::string::npos);
}

TEST(FleetReport, HtmlLinksANodesOwnReport) {
  FleetResult f = four_nodes();
  f.nodes[2].has_report_html = true;
  const std::string html = render_fleet_html(f);
  EXPECT_NE(html.find("<a class=\"mono\" href=\"nodes/ok-1/run/index.html\">ok-1</a>"),
            std::string::npos);
}

TEST(FleetReport, JsonHasEveryNodeWithItsStatus) {
  const Json j = render_fleet_json(four_nodes());
  ASSERT_EQ(j["nodes"].size(), 5U);
  EXPECT_EQ(j["nodes"][0]["name"], "mut<ant>");
  EXPECT_EQ(j["nodes"][0]["overall"], "fail");
  EXPECT_EQ(j["nodes"][0]["failing_clauses"], Json({"MR-AK-03"}));
  EXPECT_EQ(j["nodes"][0]["failing_tests"], Json({"TP-2"}));
  EXPECT_EQ(j["nodes"][1]["status"], "never-ran");
  EXPECT_EQ(j["nodes"][1]["overall"], "error");
  EXPECT_EQ(j["all_passed"], false);
}

TEST(FleetReport, JunitHasASuitePerNodeAndAnErrorForANodeWithoutResult) {
  const std::string x = render_fleet_junit(four_nodes());
  EXPECT_NE(x.find("<testsuite name=\"mut&lt;ant&gt;\" tests=\"2\" failures=\"1\" errors=\"0\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testsuite name=\"never\" tests=\"1\" failures=\"0\" errors=\"1\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("classname=\"mut&lt;ant&gt;.base/ack\" name=\"TP-2\""), std::string::npos);
  EXPECT_NE(
      x.find("<testsuites name=\"metaroce fleet rack\" tests=\"9\" failures=\"1\" errors=\"1\""),
      std::string::npos)
      << x;
}

}  // namespace
}  // namespace mr::fleet
