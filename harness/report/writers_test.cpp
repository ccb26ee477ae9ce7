// File: writers_test.cpp
//
// The report writers on a small synthetic run (sample_run.h): golden-ish content checks,
// JUnit parsed by Python's xml.etree and validated by xmllint against junit.xsd, report.json
// checked against report.schema.json, hostile strings, long exchanges, the real clause catalog, and
// the run directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/report/coverage.h"
#include "harness/report/escape.h"
#include "harness/report/format.h"
#include "harness/report/report_json.h"
#include "harness/report/run_directory.h"
#include "harness/report/sample_run.h"
#include "harness/report/sha256.h"
#include "harness/report/writer.h"

namespace mr::report {
namespace {

using Json = nlohmann::ordered_json;
using testing::hostile_run;
using testing::sample_run;

std::string render(std::string_view file, const RunResult& run) {
  const std::map<std::string, std::string> none;
  for (const Writer& w : writers()) {
    if (w.file_name == file) return w.render(RenderContext{run, none});
  }
  ADD_FAILURE() << "no writer for " << file;
  return "";
}

std::string tmp_dir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count(const std::string& hay, std::string_view needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// Runs a Python check on `contents`; returns its exit status and output.
std::pair<int, std::string> python_check(const std::string& script, const std::string& contents) {
  static int n = 0;
  const std::string base = tmp_dir() + "/py" + std::to_string(n++);
  std::ofstream(base + ".py") << script;
  std::ofstream(base + ".in", std::ios::binary) << contents;
  const std::string cmd =
      "/usr/bin/python3 " + base + ".py " + base + ".in > " + base + ".out 2>&1";
  const int rc = std::system(cmd.c_str());
  return {rc, read(base + ".out")};
}

// ---- junit.xml -------------------------------------------------------------------------

constexpr const char* kJunitCheck = R"py(
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
for a in ("tests", "failures", "errors", "time"):
    assert a in root.attrib, a
suites = root.findall("testsuite")
total = 0
for s in suites:
    for a in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp"):
        assert a in s.attrib, (s.attrib, a)
    cases = s.findall("testcase")
    assert int(s.get("tests")) == len(cases)
    assert int(s.get("failures")) == len([c for c in cases if c.find("failure") is not None])
    assert int(s.get("errors")) == len([c for c in cases if c.find("error") is not None])
    assert int(s.get("skipped")) == len([c for c in cases if c.find("skipped") is not None])
    float(s.get("time"))
    for c in cases:
        assert c.get("classname") == s.get("name")
        float(c.get("time"))
    total += len(cases)
assert int(root.get("tests")) == total
for s in suites:
    for c in s.findall("testcase"):
        kids = [k.tag for k in c if k.tag != "system-out"]
        print(s.get("name"), c.get("name"), ",".join(kids),
              "|".join((k.get("message") or "") for k in c if k.tag != "system-out"))
)py";

TEST(Junit, ParsesAndHasOneSuitePerArea) {
  const std::string xml = render("junit.xml", sample_run());
  const auto [rc, out] = python_check(kJunitCheck, xml);
  ASSERT_EQ(rc, 0) << out << "\n" << xml;
  EXPECT_NE(out.find("base/psn RC-PSN-001  \n"), std::string::npos) << out;
  EXPECT_NE(out.find("base/psn RC-PSN-004 failure testcases/base/psn/RC-PSN-004.mrt:12: BTH.psn: "
                     "expected 0x000457 (1111) vs actual 0x000456 (1110)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("base/retry RC-RT-002 skipped inconclusive: capture lost"), std::string::npos)
      << out;
  EXPECT_NE(out.find("base/wire RC-WF-003 error DUT agent stopped"), std::string::npos) << out;
  EXPECT_NE(out.find("ext/ud UD-SND-001 skipped PICS does not claim ud.send\n"), std::string::npos)
      << out;
  // Both failures are in the body, with file:line.
  EXPECT_NE(xml.find("RC-PSN-004.mrt:14: AETH.syndrome: expected 0x1f (31) vs actual 0x60 (96)"),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuites name=\"metaroce\" tests=\"5\" failures=\"1\" errors=\"1\""),
            std::string::npos);
  // The verdict is the test case's status; its file and capture are in system-out.
  EXPECT_NE(xml.find("name=\"RC-RT-002\" time=\"0.012\" status=\"inconc\">"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<system-out>file: testcases/base/psn/RC-PSN-004.mrt\nverdict: fail\n"),
            std::string::npos)
      << xml;
}

// xmllint against junit.xsd, the common schema CI tools validate against (Jenkins xUnit's
// junit-10 structure): the exit status and xmllint's messages.
std::pair<int, std::string> junit_schema_check(const std::string& xml) {
  static int n = 0;
  const std::string base = tmp_dir() + "/junit" + std::to_string(n++);
  std::ofstream(base + ".xml", std::ios::binary) << xml;
  const std::string cmd =
      "xmllint --noout --schema harness/report/junit.xsd " + base + ".xml > " + base + ".out 2>&1";
  const int rc = std::system(cmd.c_str());
  return {rc, read(base + ".out")};
}

TEST(Junit, ValidatesAgainstTheCommonJunitSchema) {
  for (const RunResult& run : {sample_run(), hostile_run("<script>\x01\xff]]>"), RunResult{}}) {
    const std::string xml = render("junit.xml", run);
    const auto [rc, out] = junit_schema_check(xml);
    EXPECT_EQ(rc, 0) << out << "\n" << xml;
  }
}

TEST(Junit, TheSchemaRefusesWhatCiToolsRefuse) {
  std::string xml = render("junit.xml", sample_run());
  const size_t at = xml.find("<testcase ");
  ASSERT_NE(at, std::string::npos);
  xml.insert(at + 10, "file=\"x.mrt\" ");
  const auto [rc, out] = junit_schema_check(xml);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("attribute 'file': The attribute 'file' is not allowed"), std::string::npos)
      << out;
}

// A CI page of a run on a mutated reference says so, and how the run was made.
TEST(Junit, EverySuiteCarriesTheMutantsAndTheRunOptionsAsProperties) {
  RunResult run = sample_run();
  run.mutants = {"wrong-msn", "two-naks-per-sequence-error"};
  run.options = Json{{"dut", "reference"},
                     {"testcases", Json::array({"testcases/base", "mine.mrt"})},
                     {"filter", "RC-PSN-*"},
                     {"repeat", 2},
                     {"mutants", run.mutants}};
  const std::string xml = render("junit.xml", run);
  const size_t suites = count(xml, "<testsuite ");
  ASSERT_EQ(suites, 4u) << xml;
  for (const char* property :
       {"<property name=\"mutant\" value=\"wrong-msn\"/>",
        "<property name=\"mutant\" value=\"two-naks-per-sequence-error\"/>",
        "<property name=\"option.dut\" value=\"reference\"/>",
        "<property name=\"option.testcases\" value=\"testcases/base, mine.mrt\"/>",
        "<property name=\"option.filter\" value=\"RC-PSN-*\"/>",
        "<property name=\"option.repeat\" value=\"2\"/>",
        "<property name=\"option.mutants\" value=\"wrong-msn, two-naks-per-sequence-error\"/>"}) {
    EXPECT_EQ(count(xml, property), suites) << property << "\n" << xml;
  }
  const auto [rc, out] = junit_schema_check(xml);
  EXPECT_EQ(rc, 0) << out << "\n" << xml;
  // A real run has neither.
  EXPECT_EQ(render("junit.xml", sample_run()).find("name=\"mutant\""), std::string::npos);
}

TEST(Junit, AFailureNamesTheClausesItIsAgainst) {
  const std::string xml = render("junit.xml", sample_run());
  EXPECT_NE(xml.find("(The ACK names the wrong PSN.) [clauses MR-PS-01: A responder answers a "
                     "duplicate request with an...; MR-WF-01: Every RoCEv2 packet has UDP "
                     "destination port 4791]"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("(A NAK where an ACK was expected.) [clause MR-WF-01: Every RoCEv2 packet "
                     "has UDP destination port 4791]"),
            std::string::npos)
      << xml;
}

// ---- report.json -----------------------------------------------------------------------

// The subset of JSON Schema report.schema.json uses: type, required, properties,
// additionalProperties (schema), items, enum, const, minimum, $ref to #/$defs/...
void validate(const Json& schema, const Json& root, const Json& v, const std::string& path,
              std::vector<std::string>& errors) {
  if (schema.contains("$ref")) {
    const std::string ref = schema["$ref"];
    validate(root["$defs"][ref.substr(std::string("#/$defs/").size())], root, v, path, errors);
    return;
  }
  if (schema.contains("type")) {
    std::vector<std::string> types;
    if (schema["type"].is_array()) {
      for (const auto& t : schema["type"]) types.push_back(t);
    } else {
      types.push_back(schema["type"]);
    }
    bool ok = false;
    for (const std::string& t : types) {
      ok |= (t == "object" && v.is_object()) || (t == "array" && v.is_array()) ||
            (t == "string" && v.is_string()) || (t == "integer" && v.is_number_integer()) ||
            (t == "number" && v.is_number()) || (t == "boolean" && v.is_boolean()) ||
            (t == "null" && v.is_null());
    }
    if (!ok) errors.push_back(path + ": type " + schema["type"].dump() + " but " + v.dump());
    if (!ok) return;
  }
  if (schema.contains("const") && v != schema["const"]) errors.push_back(path + ": const");
  if (schema.contains("enum") &&
      std::find(schema["enum"].begin(), schema["enum"].end(), v) == schema["enum"].end()) {
    errors.push_back(path + ": not in enum: " + v.dump());
  }
  if (schema.contains("minimum") && v.is_number() && v.get<double>() < schema["minimum"]) {
    errors.push_back(path + ": below minimum");
  }
  if (v.is_object()) {
    for (const auto& key : schema.value("required", Json::array())) {
      if (!v.contains(key.get<std::string>())) errors.push_back(path + ": missing " + key.dump());
    }
    for (const auto& [key, value] : v.items()) {
      std::string child = path;
      child += ".";
      child += key;
      if (schema.contains("properties") && schema["properties"].contains(key)) {
        validate(schema["properties"][key], root, value, child, errors);
      } else if (schema.contains("additionalProperties")) {
        if (schema["additionalProperties"].is_boolean()) {
          if (!schema["additionalProperties"].get<bool>()) {
            errors.push_back(child + ": unexpected key");
          }
        } else {
          validate(schema["additionalProperties"], root, value, child, errors);
        }
      }
    }
  }
  if (v.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < v.size(); ++i) {
      validate(schema["items"], root, v[i], path + "[" + std::to_string(i) + "]", errors);
    }
  }
}

Json load_schema() { return Json::parse(read("harness/report/report.schema.json")); }

TEST(ReportJson, ValidatesAgainstTheDocumentedSchema) {
  const Json schema = load_schema();
  ASSERT_EQ(schema["properties"]["schema_version"]["const"], kReportSchemaVersion);
  for (const RunResult& run : {sample_run(), hostile_run("<script>\x01\xff"), RunResult{}}) {
    const Json report = Json::parse(render("report.json", run));
    std::vector<std::string> errors;
    validate(schema, schema, report, "$", errors);
    EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors);
  }
}

TEST(ReportJson, TheValidatorCatchesAMissingKey) {
  const Json schema = load_schema();
  Json report = Json::parse(render("report.json", sample_run()));
  report["tests"][1]["failures"][0].erase("line");
  report["tests"][0]["verdict"] = "passed";
  std::vector<std::string> errors;
  validate(schema, schema, report, "$", errors);
  EXPECT_EQ(errors.size(), 2u) << ::testing::PrintToString(errors);
}

// jq and JavaScript read JSON numbers as doubles: 2^64 - 59 would come back as 2^64, and
// that seed would not replay the run.
TEST(ReportJson, ASeedAbove2To53IsItsExactDecimalString) {
  RunResult run = sample_run();
  run.seed = 18446744073709551557ULL;
  run.tests[0].repetitions = {{.seed = 9007199254740993ULL, .verdict = Verdict::kPass}};
  const Json r = to_report_json(run);
  EXPECT_EQ(r["seed"], "18446744073709551557");
  EXPECT_EQ(r["tests"][0]["repetitions"][0]["seed"], "9007199254740993");
}

TEST(ReportJson, AFailureRecordCarriesTheClausesItIsAgainst) {
  const Json r = to_report_json(sample_run());
  const Json& failures = r["tests"][1]["failures"];
  EXPECT_EQ(failures[0]["clauses"], Json::array({"MR-PS-01", "MR-WF-01"}));
  EXPECT_EQ(failures[1]["clauses"], Json::array({"MR-WF-01"}));
  // An earlier report of the same schema version, without the key, is still valid.
  Json earlier = r;
  for (Json& f : earlier["tests"][1]["failures"]) f.erase("clauses");
  const Json schema = load_schema();
  std::vector<std::string> errors;
  validate(schema, schema, earlier, "$", errors);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors);
}

TEST(ReportJson, CarriesEveryFieldAndTheDerivedOnes) {
  const Json r = to_report_json(sample_run());
  EXPECT_EQ(r["schema_version"], kReportSchemaVersion);
  EXPECT_EQ(r["overall"], "error");
  EXPECT_EQ(r["counts"]["pass"], 1);
  EXPECT_EQ(r["counts"]["not-applicable"], 1);
  EXPECT_EQ(r["seed"], "42");
  const Json& fail = r["tests"][1];
  EXPECT_EQ(fail["area"], "base/psn");
  EXPECT_EQ(fail["failures"].size(), 2u);
  EXPECT_EQ(fail["failures"][0]["actual_packet"]["BTH"]["psn"], 1110);
  EXPECT_EQ(fail["packets"][1]["script_ref"], "");
  EXPECT_EQ(r["tests"][2]["attempts"], 2);
  EXPECT_EQ(r["coverage"][0]["level"], "MUST");
}

// ---- index.html ------------------------------------------------------------------------

TEST(IndexHtml, HeaderMatrixAndTests) {
  const std::string html = render("index.html", sample_run());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos) << "self-contained: no external resource";
  // The DUT's identity as text, not JSON; the counts skip verdicts no test has.
  EXPECT_NE(html.find("<th>DUT name</th><td>reference</td>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<span class=\"badge v-none\">none</span> 0"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge v-fail\">fail</span> 1"), std::string::npos);
  EXPECT_NE(html.find("<th>Seed</th><td>42</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>Profile</th><td>base-rc</td>"), std::string::npos);
  // Clause matrix: MUST clauses first, the uncovered MUST one highlighted, the SHOULD last
  // of the catalog, the cited-but-unknown clause after it.
  const size_t must = html.find("id=\"c-MR-PS-01\"");
  const size_t uncovered = html.find("id=\"c-MR-AK-09\" class=\"uncovered mandatory\"");
  const size_t should = html.find("id=\"c-MR-PS-02\" class=\"covered\"");
  const size_t unknown = html.find("id=\"c-MR-UD-01\" class=\"covered unknown\"");
  ASSERT_NE(must, std::string::npos);
  ASSERT_NE(uncovered, std::string::npos);
  ASSERT_NE(should, std::string::npos);
  ASSERT_NE(unknown, std::string::npos);
  EXPECT_LT(must, should);
  EXPECT_LT(uncovered, should);
  EXPECT_LT(should, unknown);
  // One section per test, with its verdict.
  EXPECT_EQ(count(html, "<section class=\"test "), 5u);
  EXPECT_NE(html.find("<section class=\"test v-fail\" id=\"t-RC-PSN-004\">"), std::string::npos);
  // The ladder: one row per packet, direction and script line; the unmatched one marked.
  EXPECT_EQ(count(html, "<tr class=\"to-dut"), 2u);
  EXPECT_EQ(count(html, "<tr class=\"to-tester"), 3u);
  // The failing packets highlighted, naming their fields; packet 2 is also unmatched.
  EXPECT_NE(html.find("<tr class=\"to-tester unmatched failing\">"), std::string::npos);
  EXPECT_NE(html.find("RC-PSN-004.mrt:14 expect <span class=\"fails\">fails: AETH.syndrome</span>"),
            std::string::npos);
  EXPECT_EQ(count(html, " failing\">"), 2u);
  EXPECT_NE(html.find("RC-PSN-004.mrt:14 expect"), std::string::npos);
  // Expected vs actual: the differing field highlighted and in focus.
  EXPECT_NE(html.find("<tr class=\"differs focus\"><td class=\"mono\">BTH.psn</td>"
                      "<td class=\"v\">0x457 (1111)</td><td class=\"v\">0x456 (1110)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td class=\"mono\">BTH.dqpn</td>"), std::string::npos);
  EXPECT_EQ(html.find(">frame<"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"./captures/RC-PSN-001.pcapng\">"), std::string::npos);
  // Failures first: the table of contents and the sections go fail, error, inconc, pass, n/a.
  std::vector<size_t> at;
  for (const char* id : {"RC-PSN-004", "RC-WF-003", "RC-RT-002", "RC-PSN-001", "UD-SND-001"}) {
    at.push_back(html.find(std::string("id=\"t-") + id + "\""));
    ASSERT_NE(at.back(), std::string::npos) << id;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
  const size_t toc = html.find("<ul class=\"toc\">");
  ASSERT_NE(toc, std::string::npos);
  EXPECT_LT(html.find("href=\"#t-RC-PSN-004\"", toc), html.find("href=\"#t-RC-PSN-001\"", toc));
  // A number never breaks inside its digits: no break-all anywhere in the stylesheet.
  EXPECT_EQ(html.find("break-all"), std::string::npos);
}

TEST(IndexHtml, AFailuresClausesLinkToTheMatrixWithTheirTitles) {
  const std::string html = render("index.html", sample_run());
  EXPECT_NE(html.find("<th>Message</th><th>Clauses</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>A NAK where an ACK was expected.</td><td class=\"clauses\"><span "
                      "class=\"clause\"><a class=\"mono\" href=\"#c-MR-WF-01\" title=\"Every "
                      "RoCEv2 packet has UDP destination port 4791.\">MR-WF-01</a> Every RoCEv2 "
                      "packet has UDP destination port 4791</span></td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"clauses\"><span class=\"clause\"><a class=\"mono\" "
                      "href=\"#c-MR-PS-01\""),
            std::string::npos);
  // A clause the catalog lacks is its id alone, still linked to its matrix row.
  RunResult run = sample_run();
  run.tests[1].failures[0].clauses = {"MR-XX-01"};
  EXPECT_NE(render("index.html", run)
                .find("<span class=\"clause\"><a class=\"mono\" href=\"#c-MR-XX-01\">"
                      "MR-XX-01</a></span>"),
            std::string::npos);
}

TEST(IndexHtml, TheRunsOptionsReadAsTextBesideTheMutantBanner) {
  RunResult run = sample_run();
  run.options = Json{{"filter", "RC-PSN-*"},
                     {"fail_on", ""},
                     {"seed", "1"},
                     {"mutants", Json::array({"wrong-msn"})}};
  run.mutants = {"wrong-msn"};
  const std::string html = render("index.html", run);
  EXPECT_NE(html.find("<th>Options</th><td>filter RC-PSN-*, seed 1, mutants wrong-msn</td>"),
            std::string::npos)
      << html.substr(html.find("<th>Options"), 120);
  EXPECT_NE(html.find("<p class=\"mutant-banner\">Mutated reference (wrong-msn)"),
            std::string::npos);
}

TEST(IndexHtml, LongExchangesCollapse) {
  RunResult run = sample_run();
  TestResult& t = run.tests[0];
  t.packets.resize(3000, t.packets[0]);
  const std::string html = render("index.html", run);
  EXPECT_EQ(count(html, "<tr class=\"to-dut"), 2999u + 1u);
  EXPECT_NE(html.find("<details class=\"exchange\"><summary>Exchange: 3000 packets"),
            std::string::npos);
  EXPECT_NE(html.find("<summary>Packets 2751–3000</summary>"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"exchange\" open><summary>Exchange: 3 packets"),
            std::string::npos);
}

TEST(IndexHtml, ThePerPlaneViewListsEachPathDutFirstAndMarksOneThatDeliveredNothing) {
  RunResult run = sample_run();
  EXPECT_EQ(count(render("index.html", run), "Planes and EVs"), 0u);  // no Ext packets
  run.tests[0].paths = {
      {.from_tester = true, .plane = 0, .ev = 0xc001, .packets = 9},
      {.from_tester = false, .plane = 1, .ev = 0xc102, .packets = 4, .dropped = 4},
      {.from_tester = false, .plane = 0, .ev = 0xc101, .packets = 5, .retransmissions = 1}};
  const std::string html = render("index.html", run);
  EXPECT_NE(html.find("<summary>Planes and EVs: 3 paths</summary>"), std::string::npos);
  const size_t c101 = html.find("<td>0xc101</td>");
  const size_t c102 = html.find("<td>0xc102</td>");
  const size_t c001 = html.find("<td>0xc001</td>");
  ASSERT_NE(c101, std::string::npos);
  EXPECT_LT(c101, c102);  // the DUT's paths by plane, then the tester's
  EXPECT_LT(c102, c001);
  EXPECT_EQ(count(html, "<tr class=\"dead\">"), 1u);
}

TEST(IndexHtml, RepetitionsShowEachVerdictAndFlagAFlakyTest) {
  RunResult run = sample_run();
  TestResult& t = run.tests[0];
  t.repetitions = {{.seed = 11, .verdict = Verdict::kPass, .reason = ""},
                   {.seed = 12, .verdict = Verdict::kFail, .reason = "late"}};
  const std::string html = render("index.html", run);
  EXPECT_NE(html.find("<dt>Repetitions</dt><dd><strong>flaky</strong>: "), std::string::npos);
  EXPECT_NE(html.find("<span class=\"rep\" title=\"seed 12\">2 "), std::string::npos);
  TestResult& steady = run.tests[1];
  steady.repetitions = {{.seed = 1, .verdict = steady.verdict, .reason = ""},
                        {.seed = 2, .verdict = steady.verdict, .reason = ""}};
  const std::string again = render("index.html", run);
  EXPECT_EQ(count(again, "<strong>flaky</strong>"), 1u);
  EXPECT_EQ(count(again, "<dt>Repetitions</dt>"), 2u);
}

TEST(IndexHtml, EveryClauseOfTheRealCatalog) {
  RunResult run = sample_run();
  run.catalog = *spec::ClauseCatalog::from_json(Json::parse(read("docs/spec/clauses.json")),
                                                "docs/spec/clauses.json");
  const std::string html = render("index.html", run);
  size_t last_must = 0, first_other = std::string::npos;
  for (const auto& c : run.catalog.clauses_json()) {
    const size_t at = html.find("id=\"c-" + c["id"].get<std::string>() + "\"");
    ASSERT_NE(at, std::string::npos) << c["id"];
    if (c["level"] == "MUST") last_must = std::max(last_must, at);
    if (c["level"] == "SHOULD" || c["level"] == "MAY") first_other = std::min(first_other, at);
  }
  EXPECT_LT(last_must, first_other);
}

// ---- hostile strings -------------------------------------------------------------------

constexpr const char* kXmlParses = R"py(
import sys, xml.etree.ElementTree as ET
ET.parse(sys.argv[1])
)py";

// html.parser tokenizes like a browser: no tag or attribute may come from test data.
constexpr const char* kHtmlTags = R"py(
import sys, html.parser
seen = set()
class P(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        seen.add(tag)
        for k, v in attrs:
            assert not k.startswith("on"), k
            assert not (v or "").lower().startswith("javascript"), v
P().feed(open(sys.argv[1], encoding="utf-8").read())
allowed = {"html","head","meta","title","style","body","header","h1","h2","h3","table","thead",
           "tbody","tr","th","td","span","input","div","label","main","section","p","strong",
           "a","em","ul","li","dl","dt","dd","details","summary"}
assert seen <= allowed, seen - allowed
)py";

const std::vector<std::string>& hostile_strings() {
  static const std::vector<std::string> kHostile = {
      "<script>alert(1)</script>",
      "\" onmouseover=\"alert(1)",
      "' autofocus onfocus='x",
      "]]><!--",
      "a & b &amp; &#0;",
      std::string("nul\0byte\x01\x02\x1b[0m\x7f", 15),
      "bad utf8 \xff\xfe \xc3\x28 \xed\xa0\x80 \xf8\x88\x80\x80\x80",
      "**bold** | pipe | `code` [link](javascript:alert(1)) <img src=x onerror=alert(1)>",
      "line\nbreak\r\ttab",
      "javascript:alert(1)",
  };
  return kHostile;
}

TEST(Hostile, HtmlXmlAndMarkdownStayInert) {
  for (const std::string& h : hostile_strings()) {
    SCOPED_TRACE(::testing::PrintToString(h));
    const RunResult run = hostile_run(h);
    const std::string html = render("index.html", run);
    const std::string xml = render("junit.xml", run);
    const std::string md = render("summary.md", run);
    for (const std::string* out : {&html, &xml, &md}) {
      EXPECT_EQ(sanitize_text(*out), *out) << "control characters or invalid UTF-8 leaked";
    }
    for (const std::string* out : {&html, &xml}) {
      EXPECT_EQ(out->find("<script"), std::string::npos);
      EXPECT_EQ(out->find("<img"), std::string::npos);
    }
    // In Markdown every '<' from the data is backslash-escaped: text, never inline HTML.
    for (size_t at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1)) {
      EXPECT_TRUE(at > 0 && md[at - 1] == '\\') << md.substr(at, 20);
    }
    EXPECT_EQ(html.find("]]>"), std::string::npos);
    EXPECT_EQ(xml.find("]]>"), std::string::npos);
    auto [rc, msg] = python_check(kXmlParses, xml);
    EXPECT_EQ(rc, 0) << msg;
    std::tie(rc, msg) = python_check(kJunitCheck, xml);
    EXPECT_EQ(rc, 0) << msg;
    std::tie(rc, msg) = python_check(kHtmlTags, html);
    EXPECT_EQ(rc, 0) << msg;
    // report.json and manifest.json stay valid JSON whatever the bytes.
    EXPECT_TRUE(Json::accept(render("report.json", run)));
    EXPECT_TRUE(Json::accept(render("manifest.json", run)));
    EXPECT_EQ(md.find("**bold**"), std::string::npos);
    EXPECT_EQ(md.find("[link]("), std::string::npos);
  }
}

// ---- summary.md ------------------------------------------------------------------------

TEST(SummaryMd, CountsFailuresAndUncoveredClauses) {
  const std::string md = render("summary.md", sample_run());
  EXPECT_EQ(md.rfind("# MetaRoCE conformance run: ERROR\n", 0), 0u) << md;
  EXPECT_NE(md.find("| verdict | tests |\n|---|---:|\n| fail | 1 |\n| error | 1 |\n| inconc | 1 |\n"
                    "| pass | 1 |\n| not-applicable | 1 |\n| **total** | **5** |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| none |"), std::string::npos);
  EXPECT_NE(md.find("DUT reference · vendor MetaRoCE · firmware 1.0 · profile base-rc"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| **total** | **5** |"), std::string::npos);
  EXPECT_NE(md.find("## Failed (1)"), std::string::npos);
  EXPECT_NE(md.find("  - testcases/base/psn/RC-PSN-004.mrt:12 BTH.psn: expected 0x000457 (1111), "
                    "actual 0x000456 (1110) — The ACK names the wrong PSN. (clauses MR-PS-01: A "
                    "responder answers a duplicate request with an...; MR-WF-01: Every RoCEv2 "
                    "packet has UDP destination port 4791) (and 1 more)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## In error (harness fault) (1)"), std::string::npos);
  EXPECT_NE(md.find("## Inconclusive (1)"), std::string::npos);
  EXPECT_NE(md.find("## Uncovered MUST clauses (1)\n\n- MR-AK-09 (MUST): An uncovered MUST "
                    "clause."),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("MR-PS-02 (SHOULD)"), std::string::npos);
}

// ---- clause titles ---------------------------------------------------------------------

TEST(SummaryMd, AnUnstampedBuildsCommitSaysWhereItCameFrom) {
  RunResult run = sample_run();
  EXPECT_NE(render("summary.md", run).find("(87cf46c)"), std::string::npos);
  run.harness_commit_source = "checkout at run time (unstamped build)";
  for (const char* file : {"summary.md", "index.html"}) {
    EXPECT_NE(render(file, run).find("87cf46c, checkout at run time (unstamped build)"),
              std::string::npos)
        << file;
  }
}

TEST(ClauseNote, AStatementBecomesATitleCutAtAWord) {
  EXPECT_EQ(short_title("A QP sends request packets only in the RTS state."),
            "A QP sends request packets only in the RTS state");
  EXPECT_EQ(short_title("A responder never sends an RNR NAK for an RDMA WRITE without immediate "
                        "data.",
                        40),
            "A responder never sends an RNR NAK...");
  // Punctuation before the cut goes: "...," would read as a list.
  EXPECT_EQ(short_title("After each ACK, READ response or NAK", 20), "After each ACK...");
  // One word longer than the room is cut, never inside a UTF-8 sequence.
  const std::string title = short_title("\u2265\u2265\u2265\u2265\u2265", 8);
  EXPECT_EQ(title, "\u2265...");
  EXPECT_EQ(sanitize_text(title), title);
}

TEST(ClauseNote, OneOrSeveralClausesWithTheTitlesTheCatalogHas) {
  const RunResult run = sample_run();
  EXPECT_EQ(clause_note({}, run.catalog), "");
  const std::vector<std::string> one = {"MR-WF-01"};
  EXPECT_EQ(clause_note(one, run.catalog),
            "clause MR-WF-01: Every RoCEv2 packet has UDP destination port 4791");
  const std::vector<std::string> two = {"MR-XX-01", "MR-PS-02"};
  EXPECT_EQ(clause_note(two, run.catalog),
            "clauses MR-XX-01; MR-PS-02: A responder should do a thing");
}

// ---- run directory and manifest ---------------------------------------------------------

TEST(RunDirectory, WritesEveryFileAndTheManifestHashesThem) {
  const std::string dir = tmp_dir() + "/runs/nested/latest";
  std::filesystem::remove_all(tmp_dir() + "/runs");
  auto ok = write_run_directory(sample_run(), dir);
  ASSERT_TRUE(ok.has_value()) << ok.error();
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"index.html", "junit.xml", "manifest.json",
                                             "report.json", "summary.md"}));
  const Json manifest = Json::parse(read(dir + "/manifest.json"));
  EXPECT_EQ(manifest["seed"], "42");
  EXPECT_EQ(manifest["dut"]["name"], "reference");
  EXPECT_EQ(manifest["inputs"]["testcases/base/psn/RC-PSN-004.mrt"], std::string(64, 'a'));
  EXPECT_EQ(manifest["captures"]["RC-PSN-001"], "captures/RC-PSN-001.pcapng");
  ASSERT_EQ(manifest["outputs"].size(), 4u);
  for (const auto& [name, digest] : manifest["outputs"].items()) {
    auto actual = sha256_file((std::filesystem::path(dir) / name).string());
    ASSERT_TRUE(actual.has_value());
    EXPECT_EQ(digest, *actual) << name;
  }
  // Rewriting replaces the files in place.
  RunResult again = sample_run();
  again.seed = 7;
  ASSERT_TRUE(write_run_directory(again, dir).has_value());
  EXPECT_EQ(Json::parse(read(dir + "/manifest.json"))["seed"], "7");
}

TEST(RunDirectory, ManifestCarriesTheDoctorReportOfTheDutHost) {
  RunResult run = sample_run();
  EXPECT_FALSE(Json::parse(render("manifest.json", run)).contains("doctor"));
  run.doctor = nlohmann::ordered_json::parse(R"({"worst":"error","findings":[],"facts":{}})");
  EXPECT_EQ(Json::parse(render("manifest.json", run))["doctor"]["worst"], "error");
}

TEST(RunDirectory, ErrorsAreValues) {
  const std::string file = tmp_dir() + "/not_a_dir";
  std::ofstream(file) << "x";
  auto ok = write_run_directory(sample_run(), file + "/run");
  ASSERT_FALSE(ok.has_value());
  EXPECT_NE(ok.error().find("not_a_dir/run"), std::string::npos) << ok.error();
}

TEST(Coverage, AreaOfATestFile) {
  EXPECT_EQ(area_of("testcases/base/psn/RC-PSN-004.mrt"), "base/psn");
  EXPECT_EQ(area_of("/abs/repo/testcases/ext/ud/x.mrt"), "ext/ud");
  EXPECT_EQ(area_of("other/dir/x.mrt"), "other/dir");
  EXPECT_EQ(area_of("x.mrt"), "(top)");
  EXPECT_EQ(area_of("mytestcases/a/x.mrt"), "mytestcases/a");
}

}  // namespace
}  // namespace mr::report
