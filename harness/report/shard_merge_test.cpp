// File: shard_merge_test.cpp
#include "harness/report/shard_merge.h"

#include <gtest/gtest.h>

#include "harness/report/report_json.h"
#include "harness/report/sample_run.h"

namespace mr::report {
namespace {

// The sample run split into `total` shards round robin, as `run --shard` splits it.
std::vector<ShardRun> split(const RunResult& whole, int total) {
  std::vector<std::string> selected;
  for (const TestResult& t : whole.tests) selected.push_back(t.tp_id);
  std::vector<ShardRun> shards;
  for (int i = 1; i <= total; ++i) {
    RunResult part = whole;
    part.tests.clear();
    for (size_t k = static_cast<size_t>(i - 1); k < whole.tests.size();
         k += static_cast<size_t>(total))
      part.tests.push_back(whole.tests[k]);
    part.shard = ShardInfo{.index = i, .total = total, .balance = "count", .selected = selected};
    part.started_at = "2024-05-01T12:00:0" + std::to_string(i) + "Z";
    part.duration_s = 0.5 * i;
    shards.push_back({.directory = "s" + std::to_string(i),
                      .manifest_sha256 = std::string(64, static_cast<char>('0' + i)),
                      .run = std::move(part)});
  }
  return shards;
}

TEST(MergeShards, JoinsShardsIntoTheWholeRunInSuiteOrder) {
  const RunResult whole = testing::sample_run();
  auto shards = split(whole, 3);
  std::swap(shards[0], shards[2]);  // the order given does not matter
  auto merged = merge_shards(std::move(shards));
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_FALSE(merged->shard);
  RunResult expected = whole;
  expected.started_at = "2024-05-01T12:00:01Z";  // the earliest shard's
  expected.duration_s = 1.5;                     // the longest shard's
  EXPECT_EQ(to_report_json(*merged), to_report_json(expected));
  ASSERT_EQ(merged->merged_from.size(), 3u);
  EXPECT_EQ(merged->merged_from[0].index, 1);
  EXPECT_EQ(merged->merged_from[0].directory, "s1");
}

TEST(MergeShards, RefusesShardsOfRunsWithDifferentSeeds) {
  auto shards = split(testing::sample_run(), 2);
  shards[1].run.seed = 43;
  auto merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error(), "shards of different runs: seed is 42 in s1 but 43 in s2");
}

TEST(MergeShards, AcceptsStationsOfOneDeviceModelAndRefusesAnotherDevice) {
  auto shards = split(testing::sample_run(), 2);
  shards[1].run.dut["mac"] = "02:00:00:00:00:99";  // another station of the same model
  auto merged = merge_shards(shards);
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->merged_from[1].dut["mac"], "02:00:00:00:00:99");
  shards[1].run.dut["firmware"] = "2.0";
  merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().find("shards of different runs: dut is "), std::string::npos)
      << merged.error();
}

TEST(MergeShards, RefusesShardsWhoseInputsDiffer) {
  auto shards = split(testing::sample_run(), 2);
  shards[1].run.inputs.begin()->second = std::string(64, 'b');
  auto merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().find("inputs is "), std::string::npos) << merged.error();
}

TEST(MergeShards, RefusesAMissingShardNamingIt) {
  auto shards = split(testing::sample_run(), 3);
  shards.erase(shards.begin() + 1);
  auto merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error(), "shards missing: 2 of 3 (merge needs every shard of the run)");
}

TEST(MergeShards, RefusesAShardGivenTwice) {
  auto shards = split(testing::sample_run(), 2);
  shards.push_back(shards[0]);
  shards.back().directory = "again";
  auto merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error(), "shard 1/2 is given twice: s1 and again");
}

TEST(MergeShards, RefusesATestRunByTwoShards) {
  auto shards = split(testing::sample_run(), 2);
  shards[1].run.tests.push_back(shards[0].run.tests[0]);
  auto merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().find("was run by two shards: s1 and s2"), std::string::npos)
      << merged.error();
}

TEST(MergeShards, RefusesASelectedTestNoShardRan) {
  auto shards = split(testing::sample_run(), 2);
  const std::string lost = shards[1].run.tests.back().tp_id;
  shards[1].run.tests.pop_back();
  auto merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error(), "test " + lost + " was selected but no shard has its result");
}

TEST(MergeShards, RefusesAnInterruptedShardAndAWholeRun) {
  auto shards = split(testing::sample_run(), 2);
  shards[0].run.cancelled = true;
  auto merged = merge_shards(shards);
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().find("s1: shard 1/2 was interrupted"), std::string::npos);
  shards[0].run.cancelled = false;
  shards[0].run.shard.reset();
  merged = merge_shards(std::move(shards));
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().find("s1: not a shard"), std::string::npos);
}

}  // namespace
}  // namespace mr::report
