// The SACK bitmap as a list of PSNs: built and read across the 24-bit wrap, with the
// PSNs at or before the cumulative PSN always reported (spec 19.3).
#include "harness/engine/sack_psn_list.h"

#include <gtest/gtest.h>

namespace mr::engine {
namespace {

wire::Sacketh sacketh(uint32_t ref, int16_t offset = 0) {
  wire::Sacketh s;
  s.sack_ref = ref;
  s.sack_offset = static_cast<uint16_t>(offset);
  return s;
}

TEST(SackPsnList, BitmapReportsTheListAndEverythingUpToTheCumulativePsn) {
  // Cumulative 0x101: R = 0x100 (0x102 rounded down to 8); bits 0 and 1 are at or before it.
  const wire::Sacketh s = sacketh(0x100);
  const std::vector<uint32_t> sacked{0x104, 0x13f};
  EXPECT_EQ(sack_bitmap(s, 0x101, sacked), 0b10011 | uint64_t{1} << 63);
}

TEST(SackPsnList, ListedPsnsOutsideTheBitmapAreNotReported) {
  const wire::Sacketh s = sacketh(0x100);
  const std::vector<uint32_t> sacked{0x140, 0x0ff};
  EXPECT_EQ(sack_bitmap(s, 0x0ff, sacked), 0U);
}

TEST(SackPsnList, ReadingListsThePsnsAfterTheCumulativeOneInPsnOrder) {
  wire::Sacketh s = sacketh(0xfffff8);  // the bitmap runs across the wrap to 0x000037
  const std::vector<uint32_t> sacked{0x000002, 0xfffffe};
  s.bitmap = sack_bitmap(s, 0xfffffb, sacked);
  const SackReading r = read_sack(s, 0xfffffb);
  EXPECT_EQ(r.sacked, (std::vector<uint32_t>{0xfffffe, 0x000002}));
  EXPECT_TRUE(r.missing_at_or_before.empty());
}

TEST(SackPsnList, ReadingNamesPsnsAtOrBeforeTheCumulativeOneReportedMissing) {
  wire::Sacketh s = sacketh(0x100);
  s.bitmap = 0b100;  // 0x100 and 0x101 missing though the ACK says 0x101 was received
  const SackReading r = read_sack(s, 0x101);
  EXPECT_EQ(r.missing_at_or_before, (std::vector<uint32_t>{0x100, 0x101}));
  EXPECT_EQ(r.sacked, (std::vector<uint32_t>{0x102}));
}

TEST(SackPsnList, AnOffsetMovesTheBase) {
  wire::Sacketh s = sacketh(0x100, 64);
  s.bitmap = 1;
  EXPECT_EQ(read_sack(s, 0x0ff).sacked, (std::vector<uint32_t>{0x140}));
  wire::Sacketh back = sacketh(0x100, -8);
  back.bitmap = uint64_t{1} << 7;  // 0x0ff, at the cumulative PSN: not a SACKed one
  EXPECT_TRUE(read_sack(back, 0x0ff).sacked.empty());
}

TEST(SackPsnList, ANaksCumulativePsnIsReadFromTheRunOfOnesAtTheReference) {
  wire::Sacketh s = sacketh(0x100);
  s.bitmap = 0b1011;  // 0x100 and 0x101 received, 0x102 missing, 0x103 SACKed
  EXPECT_EQ(cumulative_psn(s, 0x105, /*from_bitmap=*/true), 0x101U);
  EXPECT_EQ(cumulative_psn(s, 0x105, /*from_bitmap=*/false), 0x105U);  // an ACK says it
  s.bitmap = 0;
  EXPECT_EQ(cumulative_psn(s, 0x105, true), 0x0ffU);
  wire::Sacketh moved = sacketh(0x100, 64);  // the reference lies before the bitmap
  moved.bitmap = ~uint64_t{0};
  EXPECT_EQ(cumulative_psn(moved, 0x105, true), 0x0ffU);
}

TEST(SackPsnList, PsnsWrapModulo2To24) {
  script::Expr list;
  list.kind = script::Expr::Kind::kList;
  script::Expr a;
  a.number = 0x1000005;
  list.items.push_back(std::move(a));
  const auto psns = evaluate_psn_list(list, SymbolTable{});
  ASSERT_TRUE(psns) << psns.error();
  EXPECT_EQ(*psns, (std::vector<uint32_t>{5}));
  EXPECT_EQ(psn_list_text(*psns), "[0x000005]");
}

TEST(SackPsnList, HalfTheSpaceAheadIsAfterTheCumulativePsn) {
  // Section 21.1: p is at or before C when p - (C + 1) >= 2^23 modulo 2^24.
  EXPECT_TRUE(at_or_before(0x100, 0x100));
  EXPECT_TRUE(at_or_before(0x100 + 0x800001, 0x100));
  EXPECT_FALSE(at_or_before(0x100 + 0x800000, 0x100));
  EXPECT_FALSE(at_or_before(0x101, 0x100));
}

TEST(SackPsnList, ANumberIsNotAList) {
  script::Expr n;
  n.number = 3;
  EXPECT_FALSE(evaluate_psn_list(n, SymbolTable{}));
}

}  // namespace
}  // namespace mr::engine
