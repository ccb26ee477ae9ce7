// File: test_shard_test.cpp
#include "harness/engine/test_shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace mr::engine {
namespace {

std::vector<std::string> names(size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back("TP-" + std::to_string(i));
  return out;
}

TEST(ParseShard, ReadsIOfN) {
  auto s = parse_shard("2/4");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->total, 4);
}

TEST(ParseShard, RefusesZeroBasedAndMalformedShards) {
  for (const char* bad : {"0/4", "5/4", "1/0", "2", "a/4", "2/4x", "-1/4", "1/10001", ""}) {
    auto s = parse_shard(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().find(std::string("--shard ") + bad), std::string::npos) << s.error();
  }
  EXPECT_NE(parse_shard("0/4").error().find("count from 1"), std::string::npos);
}

TEST(ShardFromBazel, MapsTheZeroBasedIndex) {
  auto s = shard_from_bazel("3", "0");
  ASSERT_TRUE(s) << s.error();
  ASSERT_TRUE(*s);
  EXPECT_EQ((*s)->index, 1);
  EXPECT_EQ((*s)->total, 3);
  auto none = shard_from_bazel(nullptr, nullptr);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST(ShardFromBazel, RefusesAnIndexOutOfRangeOrWithoutATotal) {
  EXPECT_FALSE(shard_from_bazel("3", "3"));
  EXPECT_FALSE(shard_from_bazel("3", nullptr));
  EXPECT_FALSE(shard_from_bazel(nullptr, "0"));
  EXPECT_FALSE(shard_from_bazel("x", "0"));
}

// Every test in exactly one shard, for both ways of sharing.
void expect_partition(const std::vector<std::string>& tests, int total,
                      const std::map<std::string, double>& durations) {
  std::multiset<size_t> seen;
  for (int i = 1; i <= total; ++i) {
    for (size_t k : shard_members(tests, {.index = i, .total = total}, durations)) seen.insert(k);
  }
  ASSERT_EQ(seen.size(), tests.size());
  for (size_t k = 0; k < tests.size(); ++k) EXPECT_EQ(seen.count(k), 1u) << k;
}

TEST(ShardMembers, ByCountEveryTestIsInExactlyOneShard) {
  for (int total : {1, 2, 3, 7, 226, 300}) expect_partition(names(226), total, {});
}

TEST(ShardMembers, ByCountGoesRoundRobinInSuiteOrder) {
  EXPECT_EQ(shard_members(names(7), {.index = 2, .total = 3}, {}), (std::vector<size_t>{1, 4}));
}

TEST(ShardMembers, ByDurationsEveryTestIsInExactlyOneShard) {
  const auto tests = names(50);
  std::map<std::string, double> durations;
  for (size_t i = 0; i < 40; ++i) durations[tests[i]] = 0.1 * static_cast<double>(i % 7);
  for (int total : {1, 2, 4, 9}) expect_partition(tests, total, durations);
}

TEST(ShardMembers, ByDurationsTheLongTestsGoToDifferentShards) {
  // Two long tests and six short ones on two shards: round robin would put both long ones
  // (indices 0 and 2) on shard 1; longest first puts one on each.
  const auto tests = names(8);
  std::map<std::string, double> durations;
  for (const auto& t : tests) durations[t] = 1;
  durations["TP-0"] = 10;
  durations["TP-2"] = 10;
  const auto one = shard_members(tests, {.index = 1, .total = 2}, durations);
  const auto two = shard_members(tests, {.index = 2, .total = 2}, durations);
  const auto has = [](const std::vector<size_t>& v, size_t k) {
    return std::find(v.begin(), v.end(), k) != v.end();
  };
  EXPECT_TRUE(has(one, 0) != has(one, 2));
  EXPECT_EQ(one.size(), 4u);
  EXPECT_EQ(two.size(), 4u);
}

TEST(ShardMembers, MoreShardsThanTestsLeavesSomeEmpty) {
  EXPECT_TRUE(shard_members(names(2), {.index = 3, .total = 3}, {}).empty());
}

}  // namespace
}  // namespace mr::engine
