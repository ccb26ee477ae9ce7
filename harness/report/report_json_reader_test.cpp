// File: report_json_reader_test.cpp
#include "harness/report/report_json_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/report/report_json.h"
#include "harness/report/sample_run.h"

namespace mr::report {
namespace {

using Json = nlohmann::ordered_json;

TEST(ReportJsonReader, ReadsBackEveryFieldTheWriterWrote) {
  RunResult run = testing::sample_run();
  run.repeat = 3;
  run.mutants = {"ack-psn-off-by-one"};
  run.seed = 18'446'744'073'709'551'615ULL;  // above 2^53: a string in report.json
  run.tests[0].repetitions = {{.seed = 7,
                               .verdict = Verdict::kPass,
                               .reason = "",
                               .capture = "c",
                               .duration_s = 0.5,
                               .attempts = 2}};
  run.shard = ShardInfo{.index = 2, .total = 3, .balance = "count", .selected = {"A", "B"}};
  run.tests[0].paths = {{.from_tester = false,
                         .plane = 3,
                         .ev = 0xc103,
                         .packets = 241,
                         .retransmissions = 0,
                         .dropped = 53}};
  const Json written = to_report_json(run);
  auto read = run_from_report_json(written, "report.json");
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(to_report_json(*read), written);
  EXPECT_EQ(read->seed, run.seed);
  ASSERT_TRUE(read->shard);
  EXPECT_EQ(read->shard->index, 2);
  ASSERT_EQ(read->tests[0].paths.size(), 1U);
  EXPECT_EQ(read->tests[0].paths[0].dropped, 53U);
}

TEST(ReportJsonReader, AWholeRunHasNoShard) {
  auto read = run_from_report_json(to_report_json(testing::sample_run()), "report.json");
  ASSERT_TRUE(read) << read.error();
  EXPECT_FALSE(read->shard);
}

TEST(ReportJsonReader, AMistypedMemberIsNamedByItsPath) {
  Json j = to_report_json(testing::sample_run());
  j["tests"][2]["verdict"] = "passed";
  auto read = run_from_report_json(j, "r/report.json");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("r/report.json: tests[2].verdict: expected one of"),
            std::string::npos)
      << read.error();
}

TEST(ReportJsonReader, AMissingMemberIsNamed) {
  Json j = to_report_json(testing::sample_run());
  j["tests"][0]["failures"] = Json::array({Json{{"file", "x"}}});
  auto read = run_from_report_json(j, "report.json");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("tests[0].failures[0].line: missing"), std::string::npos)
      << read.error();
}

TEST(ReportJsonReader, ASeedThatIsNotDecimalDigitsIsRefused) {
  Json j = to_report_json(testing::sample_run());
  j["seed"] = "12x";
  auto read = run_from_report_json(j, "report.json");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("seed: expected decimal digits"), std::string::npos) << read.error();
}

TEST(ReportJsonReader, AnotherSchemaVersionIsRefusedWithBothVersions) {
  Json j = to_report_json(testing::sample_run());
  j["schema_version"] = 1;
  auto read = run_from_report_json(j, "report.json");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("schema_version 1: this harness reads version 2"), std::string::npos)
      << read.error();
}

TEST(ReportJsonReader, AShardIndexAboveItsTotalIsRefused) {
  RunResult run = testing::sample_run();
  run.shard = ShardInfo{.index = 1, .total = 2, .balance = "count", .selected = {}};
  Json j = to_report_json(run);
  j["shard"]["index"] = 3;
  auto read = run_from_report_json(j, "report.json");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("shard.index: above shard.total"), std::string::npos) << read.error();
}

TEST(ReportJsonReader, AFileThatIsNotJsonIsNamed) {
  const std::string path = ::testing::TempDir() + "/not-json-report.json";
  std::ofstream(path) << "{\"tests\": [";
  auto read = read_report_json(path);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find(path + ": not JSON"), std::string::npos) << read.error();
  auto missing = read_report_json(::testing::TempDir() + "/absent/report.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("cannot be read"), std::string::npos);
}

}  // namespace
}  // namespace mr::report
