// File: test_shard.cpp
#include "harness/engine/test_shard.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace mr::engine {
namespace {

constexpr int kMaxShards = 10'000;

std::optional<int> whole_number(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

Expected<ShardSpec, std::string> parse_shard(std::string_view text) {
  const std::string given = "--shard " + std::string(text);
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos)
    return Unexpected(given + ": expected I/N, shard I of N, e.g. 2/4");
  const auto index = whole_number(text.substr(0, slash));
  const auto total = whole_number(text.substr(slash + 1));
  if (!index || !total) return Unexpected(given + ": I and N must be whole numbers, e.g. 2/4");
  if (*total < 1 || *total > kMaxShards)
    return Unexpected(given + ": N must be 1 to " + std::to_string(kMaxShards));
  if (*index < 1 || *index > *total)
    return Unexpected(given + ": I must be 1 to " + std::to_string(*total) +
                      " (shards count from 1; Bazel's TEST_SHARD_INDEX counts from 0 and is read "
                      "as such when --shard is not given)");
  return ShardSpec{.index = *index, .total = *total};
}

Expected<std::optional<ShardSpec>, std::string> shard_from_bazel(const char* total,
                                                                 const char* index) {
  if (total == nullptr) {
    if (index != nullptr)
      return Unexpected(std::string("TEST_SHARD_INDEX is set without TEST_TOTAL_SHARDS"));
    return std::optional<ShardSpec>();
  }
  const auto n = whole_number(total);
  if (!n || *n < 1 || *n > kMaxShards)
    return Unexpected("TEST_TOTAL_SHARDS=" + std::string(total) + ": expected 1 to " +
                      std::to_string(kMaxShards));
  const auto i = whole_number(index == nullptr ? "" : index);
  if (!i || *i < 0 || *i >= *n)
    return Unexpected("TEST_SHARD_INDEX=" + std::string(index == nullptr ? "(unset)" : index) +
                      ": expected 0 to " + std::to_string(*n - 1) +
                      " with TEST_TOTAL_SHARDS=" + std::string(total));
  return std::optional<ShardSpec>(ShardSpec{.index = *i + 1, .total = *n});
}

std::vector<size_t> shard_members(const std::vector<std::string>& tests, ShardSpec shard,
                                  const std::map<std::string, double>& durations) {
  const auto total = static_cast<size_t>(shard.total);
  const auto mine = static_cast<size_t>(shard.index - 1);
  std::vector<size_t> members;
  if (durations.empty()) {
    for (size_t k = mine; k < tests.size(); k += total) members.push_back(k);
    return members;
  }
  double known = 0;
  for (const auto& [tp, s] : durations) known += std::max(0.0, s);
  const double mean = known / static_cast<double>(durations.size());
  std::vector<double> cost(tests.size());
  for (size_t k = 0; k < tests.size(); ++k) {
    auto it = durations.find(tests[k]);
    cost[k] = it != durations.end() ? std::max(0.0, it->second) : mean;
  }
  std::vector<size_t> order(tests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  std::vector<double> load(total, 0.0);
  for (size_t k : order) {
    // The least loaded shard, the lowest on a tie: the same on every machine.
    const auto least =
        static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += cost[k];
    if (least == mine) members.push_back(k);
  }
  std::sort(members.begin(), members.end());
  return members;
}

}  // namespace mr::engine
