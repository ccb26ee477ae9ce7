#include "harness/engine/ordered_runs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mr::engine {
namespace {

report::TestResult named(size_t index) {
  report::TestResult r;
  r.tp_id = "T" + std::to_string(index);
  r.verdict = report::Verdict::kPass;
  return r;
}

TEST(RunInOrder, DeliversInIndexOrderWhenALaterRunFinishesFirst) {
  std::atomic<bool> second_done{false};
  std::vector<size_t> delivered;
  const bool complete = run_in_order(
      6, 3,
      [&](size_t i) {
        if (i == 0) {
          // Run 0 finishes only after run 1 did (bounded: a broken pool fails, not hangs).
          for (int k = 0; k < 2000 && !second_done.load(); ++k)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          EXPECT_TRUE(second_done.load()) << "run 1 never ran alongside run 0";
        }
        if (i == 1) second_done.store(true);
        return named(i);
      },
      [&](size_t i, const report::TestResult& r) {
        EXPECT_EQ(r.tp_id, "T" + std::to_string(i));
        delivered.push_back(i);
      },
      nullptr);
  EXPECT_TRUE(complete);
  EXPECT_EQ(delivered, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
}

TEST(RunInOrder, OneWorkerRunsOnTheCallingThreadInOrder) {
  const auto caller = std::this_thread::get_id();
  std::vector<size_t> ran;
  run_in_order(
      4, 1,
      [&](size_t i) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        ran.push_back(i);
        return named(i);
      },
      [](size_t, const report::TestResult&) {}, nullptr);
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(RunInOrder, StopStartsNoFurtherRunAndDeliversTheStartedOnesInOrder) {
  for (int workers : {1, 2, 4}) {
    std::atomic<int> started{0};
    std::vector<size_t> delivered;
    const bool complete = run_in_order(
        100, workers,
        [&](size_t i) {
          ++started;
          return named(i);
        },
        [&](size_t i, const report::TestResult&) { delivered.push_back(i); },
        [&] { return started.load() >= 5; });
    EXPECT_FALSE(complete) << workers << " workers";
    // Each worker may have claimed one run before it saw the stop.
    EXPECT_GE(started.load(), 5);
    EXPECT_LE(started.load(), 5 + workers - 1) << workers << " workers";
    EXPECT_EQ(delivered.size(), static_cast<size_t>(started.load()));
    for (size_t k = 1; k < delivered.size(); ++k) EXPECT_LT(delivered[k - 1], delivered[k]);
  }
}

TEST(RunInOrder, AnExceptionInARunIsThatRunsErrorVerdict) {
  std::vector<report::TestResult> delivered;
  run_in_order(
      3, 2,
      [](size_t i) {
        if (i == 1) throw std::runtime_error("the DUT vanished");
        return named(i);
      },
      [&](size_t, report::TestResult r) { delivered.push_back(std::move(r)); }, nullptr);
  ASSERT_EQ(delivered.size(), 3U);
  EXPECT_EQ(delivered[0].verdict, report::Verdict::kPass);
  EXPECT_EQ(delivered[1].verdict, report::Verdict::kError);
  EXPECT_EQ(delivered[1].reason, "harness fault: the DUT vanished");
  EXPECT_EQ(delivered[2].verdict, report::Verdict::kPass);
}

TEST(RunInOrder, NothingToRunIsComplete) {
  EXPECT_TRUE(run_in_order(
      0, 3, [](size_t i) { return named(i); }, [](size_t, const report::TestResult&) {}, nullptr));
}

}  // namespace
}  // namespace mr::engine
