#include "reference/transport/ring_deque.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace mr::transport {
namespace {

std::vector<int> contents(const RingDeque<int>& r) { return {r.begin(), r.end()}; }

TEST(RingDequeTest, AllocatesNothingBeforeTheFirstPush) {
  RingDeque<std::string> r;
  EXPECT_EQ(r.capacity(), 0u);
  EXPECT_EQ(r.heap_bytes(), 0u);
  EXPECT_TRUE(r.empty());
  r.push_back("a");
  EXPECT_GT(r.capacity(), 0u);
}

TEST(RingDequeTest, KeepsFifoOrderAcrossTheWrapAndGrowth) {
  RingDeque<int> r;
  int next_in = 0, next_out = 0;
  // Pushes outpace pops, so the head wraps around several capacities before each growth.
  for (int round = 0; round < 200; ++round) {
    r.push_back(next_in++);
    if (round % 3 != 0) r.push_back(next_in++);
    ASSERT_EQ(r.front(), next_out);
    r.pop_front();
    ++next_out;
    ASSERT_EQ(r.size(), static_cast<size_t>(next_in - next_out));
    for (size_t i = 0; i < r.size(); ++i) ASSERT_EQ(r[i], next_out + static_cast<int>(i));
  }
  EXPECT_EQ(r.back(), next_in - 1);
}

TEST(RingDequeTest, PushFrontPutsBeforeTheOldestAndGrowsWhenFull) {
  RingDeque<int> r;
  for (int i = 1; i <= 4; ++i) r.push_back(i);
  r.pop_front();
  r.push_front(1);
  r.push_front(0);  // the ring was full: it grows with the head moved below index 0
  EXPECT_EQ(contents(r), (std::vector<int>{0, 1, 2, 3, 4}));
  r.pop_back();
  EXPECT_EQ(contents(r), (std::vector<int>{0, 1, 2, 3}));
}

TEST(RingDequeTest, PushingACopyOfItsOwnElementSurvivesGrowth) {
  RingDeque<std::string> r;
  for (const char* s : {"first element, longer than a short string", "b", "c", "d"}) r.push_back(s);
  ASSERT_EQ(r.size(), r.capacity());  // the next push grows the ring
  r.push_back(r[0]);
  EXPECT_EQ(r.back(), "first element, longer than a short string");
  RingDeque<std::string> f;
  for (const char* s : {"a", "b", "c", "last element, longer than a short string"}) f.push_back(s);
  f.push_front(f.back());
  EXPECT_EQ(f.front(), "last element, longer than a short string");
  EXPECT_EQ(f.size(), 5u);
}

TEST(RingDequeTest, IteratesForwardBackwardAndWithAlgorithms) {
  RingDeque<int> r;
  for (int i = 0; i < 6; ++i) r.push_back(i);
  r.pop_front();
  r.pop_front();
  r.push_back(6);
  r.push_back(7);  // wrapped: the front is at slot 2
  EXPECT_EQ(contents(r), (std::vector<int>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(std::vector<int>(r.rbegin(), r.rend()), (std::vector<int>{7, 6, 5, 4, 3, 2}));
  EXPECT_EQ(*std::ranges::find_if(r, [](int v) { return v > 4; }), 5);
  EXPECT_EQ(r.end() - r.begin(), 6);
  for (int& v : r) v *= 10;
  EXPECT_EQ(r[5], 70);
}

TEST(RingDequeTest, DestroysEveryElementOnceThroughPopsGrowthAndClear) {
  auto token = std::make_shared<int>(0);
  {
    RingDeque<std::shared_ptr<int>> r;
    for (int i = 0; i < 10; ++i) r.push_back(token);
    r.pop_front();
    r.push_front(token);
    EXPECT_EQ(token.use_count(), 11);
    r.pop_back();
    EXPECT_EQ(token.use_count(), 10);
    r.clear();
    EXPECT_EQ(token.use_count(), 1);
    for (int i = 0; i < 5; ++i) r.push_back(token);
  }
  EXPECT_EQ(token.use_count(), 1);  // the destructor released the rest
}

TEST(RingDequeTest, CopiesAndMovesKeepTheElementsInOrder) {
  RingDeque<std::string> r;
  for (const char* s : {"a", "b", "c", "d", "e"}) r.push_back(s);
  r.pop_front();
  RingDeque<std::string> copy = r;
  EXPECT_EQ(copy.size(), 4u);
  EXPECT_EQ(copy.front(), "b");
  RingDeque<std::string> moved = std::move(r);
  EXPECT_EQ(moved.back(), "e");
  EXPECT_TRUE(r.empty());  // NOLINT(bugprone-use-after-move): a moved-from ring is empty
  copy = moved;
  EXPECT_EQ(copy[3], "e");
}

}  // namespace
}  // namespace mr::transport
