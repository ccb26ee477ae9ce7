// File: sack_bitmap_test.cpp
#include "reference/transport/ext/sack_bitmap.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

void receive(ReceivedPsnWindow& w, uint32_t from, uint32_t to_inclusive) {
  for (uint32_t p = from; p <= to_inclusive; ++p) w.record(p);
}

// Spec EX-E2: C = 0x203, 0x205 and 0x206 received: reference 0x200, offset 0, bitmap 0x6F.
TEST(SackCursor, ReportsFromTheReferenceWhileEverythingFitsIn64) {
  ReceivedPsnWindow w(0x200, 8);
  receive(w, 0x200, 0x203);
  receive(w, 0x205, 0x206);
  SackCursor cursor;
  const SackReport r = cursor.next(w, std::nullopt);
  EXPECT_EQ(r.reference, 0x200u);
  EXPECT_EQ(r.offset, 0);
  EXPECT_EQ(r.bitmap, 0x6Fu);
  EXPECT_FALSE(r.ara);
}

// Spec EX-R2: C = 0x22F, 0x231-0x282 and the probe 0x288 received; the probe had AR = 1:
// reference 0x230, offset 0x20, base 0x250, bitmap 0x0107FFFFFFFFFFFF.
TEST(SackCursor, AnAckRequestReportsTheTriggerAndThe56PsnsBeforeIt) {
  ReceivedPsnWindow w(0x200, 8);
  receive(w, 0x200, 0x22F);
  receive(w, 0x231, 0x282);
  w.record(0x288);
  SackCursor cursor;
  const SackReport r = cursor.next(w, 0x288);
  EXPECT_EQ(r.reference, 0x230u);
  EXPECT_EQ(r.offset, 0x20);
  EXPECT_EQ(r.base(), 0x250u);
  EXPECT_EQ(r.bitmap, 0x0107FFFFFFFFFFFFu);
  EXPECT_TRUE(r.ara);
}

// MR-SA-18: a trigger beyond the window (the PSN of a NAK 0x67) does not drag the base past
// the window's right edge, C + 128 x MPR.
TEST(SackCursor, AnAckRequestBeyondTheWindowKeepsTheBaseAtItsRightEdge) {
  ReceivedPsnWindow w(0x200, 8);  // C = 0x1FF, right edge 0x1FF + 1024 = 0x5FF
  SackCursor cursor;
  const SackReport r = cursor.next(w, 0x8000);
  EXPECT_EQ(r.reference, 0x200u);
  EXPECT_EQ(r.base(), 0x5F8u);  // the edge rounded down to 8
  EXPECT_EQ(r.bitmap, 0u);
  SackCursor mutant(0);  // ext-sack-base-early: the base at the trigger itself
  EXPECT_EQ(mutant.next(w, 0x208).base(), 0x208u);
  EXPECT_EQ(SackCursor().next(w, 0x208).base(), 0x200u);
}

// Spec EX-R3: C = 0x288 and nothing after: reference 0x288, bitmap 0x1.
TEST(SackCursor, ReportsPsnsAtOrBeforeTheCumulativePsnAsReceived) {
  ReceivedPsnWindow w(0x280, 8);
  receive(w, 0x280, 0x288);
  SackCursor cursor;
  const SackReport r = cursor.next(w, std::nullopt);
  EXPECT_EQ(r.reference, 0x288u);
  EXPECT_EQ(r.bitmap, 0x1u);
}

TEST(SackCursor, AnAckRequestNearTheReferenceKeepsTheReference) {
  ReceivedPsnWindow w(0x100, 8);
  receive(w, 0x100, 0x103);
  w.record(0x110);
  SackCursor cursor;
  const SackReport r = cursor.next(w, 0x110);  // 0x110 - 56 is before R = 0x100...
  EXPECT_EQ(r.offset, 0);
}

// Holes at 0x101, 0x150 and 0x1A0, everything else up to 0x1F0 received: successive ACKs
// report the lowest hole, then the farther ones in order, then the lowest again.
TEST(SackCursor, RotatesOverTheHolesInOrderThenStartsAgain) {
  ReceivedPsnWindow w(0x100, 8);
  w.record(0x100);
  for (uint32_t p = 0x102; p <= 0x1F0; ++p) {
    if (p != 0x150 && p != 0x1A0) w.record(p);
  }
  SackCursor cursor;
  std::vector<uint32_t> bases;
  bases.reserve(4);
  for (int i = 0; i < 4; ++i) bases.push_back(cursor.next(w, std::nullopt).base());
  EXPECT_EQ(bases, (std::vector<uint32_t>{0x100, 0x150, 0x1A0, 0x100}));
  SackCursor stuck(56, /*rotates=*/false);  // the ext-sack-no-rotation mutant
  for (int i = 0; i < 3; ++i) EXPECT_EQ(stuck.next(w, std::nullopt).base(), 0x100u);
}

TEST(SackCursor, AnAckRequestLeavesTheRotationWhereItWas) {
  ReceivedPsnWindow w(0x100, 8);
  w.record(0x100);
  for (uint32_t p = 0x102; p <= 0x1F0; ++p) {
    if (p != 0x150 && p != 0x1A0) w.record(p);
  }
  SackCursor cursor;
  EXPECT_EQ(cursor.next(w, std::nullopt).base(), 0x100u);
  EXPECT_EQ(cursor.next(w, 0x1F0).base(), 0x1B8u);         // (0x1F0 - 56) rounded down
  EXPECT_EQ(cursor.next(w, std::nullopt).base(), 0x150u);  // the rotation goes on
}

TEST(SackCursor, BitsBeyondTheNewestReceivedPsnAreZero) {
  ReceivedPsnWindow w(0x100, 8);
  w.record(0x100);
  w.record(0x102);
  SackCursor cursor;
  const SackReport r = cursor.next(w, std::nullopt);
  EXPECT_EQ(r.bitmap, 0b101u);
}

}  // namespace
}  // namespace mr::transport::ext
