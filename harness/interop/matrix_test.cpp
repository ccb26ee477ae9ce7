// The interop matrix's shape (every combination once, a quick subset that still covers
// each dimension), the seeded data, and the report writers; no device involved.
#include <gtest/gtest.h>

#include <set>

#include "harness/interop/cell.h"
#include "harness/interop/matrix_report.h"
#include "harness/interop/matrix_runner.h"
#include "harness/peer/data_pattern.h"

namespace mr::interop {
using peer::bytes_u64;
using peer::pattern_bytes;
using peer::u64_bytes;
namespace {

TEST(MatrixCells, FullMatrixHasEveryCombinationOnce) {
  const auto cells = matrix_cells(false);
  // 2 directions x (3 operations x 5 sizes + 2 atomics x 1 size) x 2 MTUs x 3 impairments.
  EXPECT_EQ(cells.size(), 2U * (3 * 5 + 2) * 2 * 3);
  std::set<std::string> names;
  for (const auto& c : cells) {
    EXPECT_TRUE(names.insert(c.name()).second) << c.name();
    if (is_atomic(c.operation)) EXPECT_EQ(c.size, kAtomicSize) << c.name();
  }
  EXPECT_TRUE(names.contains("rxe-ref/READ/1048576/mtu4096/reorder"));
}

TEST(MatrixCells, QuickMatrixCoversEachDimensionAndIsPartOfTheFull) {
  const auto quick = matrix_cells(true);
  EXPECT_GE(quick.size(), 18U);
  EXPECT_LE(quick.size(), 24U);
  std::set<std::string> full;
  for (const auto& c : matrix_cells(false)) full.insert(c.name());
  std::set<std::pair<Direction, Operation>> pairs;
  std::set<Impairment> impairments;
  std::set<uint32_t> mtus;
  for (const auto& c : quick) {
    EXPECT_TRUE(full.contains(c.name())) << c.name();
    pairs.insert({c.direction, c.operation});
    impairments.insert(c.impairment);
    mtus.insert(c.mtu);
  }
  EXPECT_EQ(pairs.size(), 10U);  // every direction x operation
  EXPECT_EQ(impairments.size(), 3U);
  EXPECT_EQ(mtus.size(), 2U);
}

TEST(DataPattern, IsSeededAndNeverZero) {
  const auto a = pattern_bytes(7, 4099);
  EXPECT_EQ(a, pattern_bytes(7, 4099));
  EXPECT_NE(a, pattern_bytes(8, 4099));
  for (const uint8_t b : a) ASSERT_NE(b, 0);
  EXPECT_EQ(bytes_u64(u64_bytes(0x0102030405060708ULL)), 0x0102030405060708ULL);
  EXPECT_EQ(u64_bytes(0x0102030405060708ULL)[0], 0x08);  // host order on x86
}

TEST(CellSeed, DependsOnTheRunSeedAndTheCellNotOnTheMatrix) {
  const Cell c{Direction::kDutToReference, Operation::kRead, 4096, 4096, Impairment::kLoss};
  EXPECT_EQ(cell_seed(1, c), cell_seed(1, c));
  EXPECT_NE(cell_seed(1, c), cell_seed(2, c));
  Cell d = c;
  d.mtu = 1024;
  EXPECT_NE(cell_seed(1, c), cell_seed(1, d));
  EXPECT_EQ(capture_name(c), "cells/rxe-ref_READ_4096_mtu4096_loss.pcapng");
}

TEST(MatrixReport, TableHasOneRowPerCellAndNamesTheFailures) {
  MatrixResult r;
  r.dut_name = "rxe";
  r.seed = 0xfedcba9876543210;  // above 2^53: a JSON number would lose digits
  CellResult ok;
  ok.cell = {Direction::kReferenceToDut, Operation::kWrite, 4096, 1024, Impairment::kLoss};
  ok.analysis = CellAnalysis{.frames = 10, .roce_frames = 10, .retransmissions = 2};
  ok.outcome.duration_ns = 1'500'000;
  CellResult bad;
  bad.cell = {Direction::kDutToReference, Operation::kFetchAdd, 8, 1024, Impairment::kNone};
  bad.outcome.failures = {"requester (rxe) returned original value +64: 0x12, expected 0x34"};
  r.cells = {ok, bad};
  const std::string md = matrix_markdown(r);
  EXPECT_NE(md.find("**1 of 2 cells pass**"), std::string::npos) << md;
  EXPECT_NE(md.find("| ref-rxe | WRITE | 4096 | 1024 | loss | pass | 1.5 | 2 |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("`rxe-ref/FETCH_ADD/8/mtu1024/none`"), std::string::npos) << md;
  const auto j = matrix_json(r);
  EXPECT_EQ(j["passed"], 1);
  EXPECT_EQ(j["cells"][1]["verdict"], "fail");
  EXPECT_EQ(j["cells"][0]["analysis"]["retransmissions"], 2);
  EXPECT_EQ(j["seed"], "18364758544493064720");
}

}  // namespace
}  // namespace mr::interop
