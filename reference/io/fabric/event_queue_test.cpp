#include "reference/io/fabric/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "reference/io/fabric/seeded_random.h"

namespace mr::io::fabric {
namespace {

std::vector<uint64_t> drain_times(EventQueue& q) {
  std::vector<uint64_t> times;
  while (!q.empty()) times.push_back(q.pop().time_ps);
  return times;
}

TEST(EventQueue, PopsInTimeOrder) {
  EventQueue q;
  for (uint64_t t : {50, 10, 40, 20, 30}) q.push({.time_ps = t, .port = static_cast<uint32_t>(t)});
  EXPECT_EQ(drain_times(q), (std::vector<uint64_t>{10, 20, 30, 40, 50}));
}

TEST(EventQueue, BreaksTiesByInsertionOrder) {
  EventQueue q;
  for (uint32_t i = 0; i < 100; ++i) q.push({.time_ps = 7, .port = i});
  q.push({.time_ps = 3, .port = 1000});
  EXPECT_EQ(q.pop().port, 1000U);
  for (uint32_t i = 0; i < 100; ++i) EXPECT_EQ(q.pop().port, i);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.pushed(), 101U);
}

TEST(EventQueue, EventsBeyondTheWheelsHorizonComeOutInOrder) {
  EventQueue q;
  const uint64_t far = EventQueue::kHorizonPs;
  q.push({.time_ps = 5 * far + 1});
  q.push({.time_ps = far - 1});
  q.push({.time_ps = far});
  q.push({.time_ps = 2});
  q.push({.time_ps = 3 * far});
  EXPECT_EQ(drain_times(q), (std::vector<uint64_t>{2, far - 1, far, 3 * far, 5 * far + 1}));
}

TEST(EventQueue, ScheduledWhileReadingABucketKeepsOrder) {
  EventQueue q;
  q.push({.time_ps = 100, .port = 1});
  q.push({.time_ps = 300, .port = 2});
  EXPECT_EQ(q.pop().port, 1U);  // bucket 0 is now sorted and being read
  q.push({.time_ps = 200, .port = 3});
  q.push({.time_ps = 300, .port = 4});  // ties with port 2, scheduled later
  EXPECT_EQ(q.pop().port, 3U);
  EXPECT_EQ(q.pop().port, 2U);
  EXPECT_EQ(q.pop().port, 4U);
}

TEST(EventQueue, AnEventSoonerThanTheLookAheadStillComesFirst) {
  EventQueue q;
  const uint64_t far = 3 * EventQueue::kHorizonPs + 12345;
  q.push({.time_ps = far, .port = 1});
  EXPECT_EQ(q.top().time_ps, far);  // the wheel has moved its epoch out there
  q.push({.time_ps = 5000, .port = 2});
  q.push({.time_ps = far, .port = 3});
  EXPECT_EQ(q.pop().port, 2U);
  EXPECT_EQ(q.pop().port, 1U);
  EXPECT_EQ(q.pop().port, 3U);
}

TEST(EventQueue, MatchesASortOfRandomScheduleWithInterleavedPops) {
  EventQueue q;
  SeededRandom random(17);
  std::vector<Event> reference;  // what a stable sort by time says
  std::vector<Event> popped;
  uint64_t now = 0;
  uint64_t sequence = 0;
  for (int round = 0; round < 2000; ++round) {
    for (int k = 0; k < 5; ++k) {
      // Mostly near, sometimes beyond the horizon, often tied.
      const uint64_t delay = random.chance(0.05) ? random.next() % (4 * EventQueue::kHorizonPs)
                                                 : (random.next() % 64) * 512;
      Event e{.time_ps = now + delay};
      q.push(e);
      e.sequence = sequence++;
      reference.push_back(e);
    }
    for (int k = 0; k < 4 && !q.empty(); ++k) {
      popped.push_back(q.pop());
      now = popped.back().time_ps;
    }
  }
  while (!q.empty()) popped.push_back(q.pop());
  // Each pop was the earliest pending at the time, so the whole sequence is sorted.
  ASSERT_EQ(popped.size(), reference.size());
  for (size_t i = 1; i < popped.size(); ++i) {
    const bool ordered =
        popped[i - 1].time_ps < popped[i].time_ps ||
        (popped[i - 1].time_ps == popped[i].time_ps && popped[i - 1].sequence < popped[i].sequence);
    ASSERT_TRUE(ordered) << i;
  }
  std::stable_sort(reference.begin(), reference.end(),
                   [](const Event& a, const Event& b) { return a.time_ps < b.time_ps; });
  for (size_t i = 0; i < reference.size(); ++i) {
    ASSERT_EQ(popped[i].sequence, reference[i].sequence) << i;
  }
}

}  // namespace
}  // namespace mr::io::fabric
