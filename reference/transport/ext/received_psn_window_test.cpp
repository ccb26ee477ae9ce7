// File: received_psn_window_test.cpp
#include "reference/transport/ext/received_psn_window.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "reference/wire/psn.h"

namespace mr::transport::ext {
namespace {

TEST(ReceivedPsnWindow, StartsWithNothingReceived) {
  ReceivedPsnWindow w(0x200, 8);
  EXPECT_EQ(w.cumulative(), 0x1ffu);
  EXPECT_FALSE(w.top());
  EXPECT_EQ(w.window(), 1024u);
  EXPECT_EQ(w.right_edge(), 0x1ffu + 1024);
  EXPECT_EQ(w.classify(0x200), PsnArrival::kNew);
}

TEST(ReceivedPsnWindow, InOrderPacketsAdvanceTheCumulativePsn) {
  ReceivedPsnWindow w(0x200, 8);
  for (uint32_t p = 0x200; p < 0x210; ++p) w.record(p);
  EXPECT_EQ(w.cumulative(), 0x20fu);
  EXPECT_FALSE(w.top());
}

// Spec EX-E2: 0x200-0x203, 0x205 and 0x206 received, 0x204 not.
TEST(ReceivedPsnWindow, AHoleStopsTheCumulativePsnAndTopIsTheNewest) {
  ReceivedPsnWindow w(0x200, 8);
  for (uint32_t p : {0x200u, 0x201u, 0x202u, 0x203u, 0x205u, 0x206u}) w.record(p);
  EXPECT_EQ(w.cumulative(), 0x203u);
  ASSERT_TRUE(w.top());
  EXPECT_EQ(*w.top(), 0x206u);
  EXPECT_FALSE(w.received(0x204));
  EXPECT_TRUE(w.received(0x205));
  EXPECT_TRUE(w.received(0x100));  // at or before C
  w.record(0x204);                 // the hole filled: C runs over the recorded ones
  EXPECT_EQ(w.cumulative(), 0x206u);
  EXPECT_FALSE(w.top());
}

TEST(ReceivedPsnWindow, ClassifiesDuplicatesAndPsnsBeyondTheWindow) {
  ReceivedPsnWindow w(0x200, 1);  // W = 128
  w.record(0x200);
  w.record(0x202);
  EXPECT_EQ(w.classify(0x200), PsnArrival::kDuplicate);  // at C
  EXPECT_EQ(w.classify(0x1f0), PsnArrival::kDuplicate);  // before C
  EXPECT_EQ(w.classify(0x202), PsnArrival::kDuplicate);  // recorded after C
  EXPECT_EQ(w.classify(0x201), PsnArrival::kNew);
  EXPECT_EQ(w.classify(0x200 + 128), PsnArrival::kNew);  // d = 127: the last in the window
  EXPECT_EQ(w.classify(0x200 + 129), PsnArrival::kBeyondWindow);
  EXPECT_EQ(w.classify(0x201 + 0x7fffff), PsnArrival::kBeyondWindow);  // d = 2^23 - 1
  EXPECT_EQ(w.classify(0x201 + 0x800000), PsnArrival::kDuplicate);     // d = 2^23: behind
}

TEST(ReceivedPsnWindow, WorksAcrossThePsnWrap) {
  ReceivedPsnWindow w(0xfffffe, 1);
  for (uint32_t p : {0xfffffeu, 0xffffffu, 0x000001u}) w.record(p);
  EXPECT_EQ(w.cumulative(), 0xffffffu);
  EXPECT_TRUE(w.received(0x000001));
  EXPECT_FALSE(w.received(0x000000));
  w.record(0x000000);
  EXPECT_EQ(w.cumulative(), 0x000001u);
}

TEST(ReceivedPsnWindow, TheRightEdgeNeverMovesBack) {
  ReceivedPsnWindow w(0x1000, 8);  // edge 0x0fff + 1024
  const uint32_t edge = w.right_edge();
  EXPECT_EQ(w.set_mpr(2), 8);  // C has not moved: MPR cannot drop
  EXPECT_EQ(w.right_edge(), edge);
  for (uint32_t p = 0x1000; p < 0x1000 + 256; ++p) w.record(p);  // C advances by 256
  EXPECT_EQ(w.set_mpr(2), 8);  // the edge moved with C, so still 8
  EXPECT_EQ(w.set_mpr(200), 200);
  EXPECT_EQ(w.set_mpr(0), 200);  // never 0, never back
  EXPECT_GE(wire::psn_diff(w.right_edge(), edge), 0);
}

TEST(ReceivedPsnWindow, LowersMprByAsMuchAsTheCumulativePsnAdvances) {
  ReceivedPsnWindow w(0, 8);  // edge = -1 + 1024
  w.set_mpr(8);
  // Record 256 PSNs with MPR lowered to 6 first: the edge was C + 1024 with C = -1.
  EXPECT_EQ(w.set_mpr(6), 8);
  for (uint32_t p = 0; p < 256; ++p) w.record(p);
  // C = 255 now, edge at least 1023 (the first) and 255 + 1024 after C moved with MPR 8.
  const int32_t room = wire::psn_diff(w.right_edge(), w.cumulative());
  EXPECT_EQ(room, 1024);
}

TEST(ReceivedPsnWindow, RaisingTheMprKeepsWhatWasRecorded) {
  ReceivedPsnWindow w(0, 1);
  for (uint32_t p : {1u, 5u, 100u}) w.record(p);
  const size_t small = w.heap_bytes();
  EXPECT_EQ(w.set_mpr(255), 255);
  EXPECT_GT(w.heap_bytes(), small);
  EXPECT_TRUE(w.received(5));
  EXPECT_TRUE(w.received(100));
  EXPECT_FALSE(w.received(2));
  EXPECT_EQ(w.classify(128 * 255 - 1), PsnArrival::kNew);  // d = W - 1
  EXPECT_EQ(w.classify(128 * 255), PsnArrival::kBeyondWindow);
}

TEST(ReceivedPsnWindow, HeapGrowsWithTheWindow) {
  EXPECT_EQ(ReceivedPsnWindow(0, 8).heap_bytes(), 128u);     // 1,024 PSNs
  EXPECT_EQ(ReceivedPsnWindow(0, 255).heap_bytes(), 4096u);  // 32,640 PSNs
}

// Every PSN of a window received in a random order: C ends at the last, every PSN was new
// exactly once, and `received` matches a plain set all along.
TEST(ReceivedPsnWindow, AgreesWithASetUnderRandomArrivalOrder) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    const uint32_t first = 0xffff00;  // across the wrap
    ReceivedPsnWindow w(first, 4);    // W = 512
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < 512; ++i) order.push_back(wire::psn_add(first, i));
    std::shuffle(order.begin(), order.end(), rng);
    std::set<uint32_t> seen;
    for (uint32_t p : order) {
      ASSERT_EQ(w.classify(p), PsnArrival::kNew) << "seed " << seed;
      w.record(p);
      seen.insert(p);
      for (uint32_t probe : {order.front(), order.back(), p}) {
        EXPECT_EQ(w.received(probe), seen.contains(probe)) << "seed " << seed;
      }
    }
    EXPECT_EQ(w.cumulative(), wire::psn_add(first, 511));
  }
}

}  // namespace
}  // namespace mr::transport::ext
