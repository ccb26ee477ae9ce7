// PacketGather: which bytes of a gather list one packet carries, as pieces of the regions
// themselves (no copy), with zeros where a region can no longer be read.
#include "reference/transport/packet_gather.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace mr::transport {
namespace {

constexpr uint64_t kRegion = 64;

struct Regions {
  memory::MemoryTable memory{7};
  QueuePair qp;
  std::vector<memory::MrInfo> mrs;

  // `count` regions of 64 bytes; region r holds bytes r * 64 + i (mod 256).
  explicit Regions(size_t count) {
    qp.init.pd = *memory.alloc_pd();
    for (size_t r = 0; r < count; ++r) {
      const memory::MrInfo mr = *memory.reg_mr(qp.init.pd, kRegion, 0);
      std::vector<uint8_t> bytes(kRegion);
      std::iota(bytes.begin(), bytes.end(), static_cast<uint8_t>(r * kRegion));
      EXPECT_TRUE(memory.write(mr.lkey, mr.va, bytes));
      mrs.push_back(mr);
    }
  }
  // A WQE gathering `length` bytes from the start of each region.
  SendWqe wqe(uint32_t length) const {
    SendWqe w;
    for (const auto& mr : mrs) w.wr.sg_list.push_back(Sge{mr.va, length, mr.lkey});
    return w;
  }
};

std::vector<uint8_t> flatten(wire::PayloadPieces pieces) {
  std::vector<uint8_t> out;
  for (const auto& p : pieces) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(PacketGather, PointsIntoTheRegionsWithoutCopying) {
  Regions r(1);
  const PacketGather g = PacketGather::of(r.qp, r.wqe(kRegion), 8, 16, r.memory);
  ASSERT_EQ(g.pieces().size(), 1U);
  EXPECT_EQ(g.size(), 16U);
  const auto region = *r.memory.resolve_local(r.mrs[0].lkey, r.qp.init.pd, r.mrs[0].va, 64, 0);
  EXPECT_EQ(g.pieces()[0].data(), region.data() + 8);
}

TEST(PacketGather, SkipsToTheOffsetAcrossSgesAndStopsAtTheLength) {
  Regions r(3);
  // Bytes 100..139 of three 64-byte SGEs: 28 from the second, 12 from the third.
  const PacketGather g = PacketGather::of(r.qp, r.wqe(kRegion), 100, 40, r.memory);
  std::vector<uint8_t> expected(40);
  std::iota(expected.begin(), expected.end(), uint8_t{100});
  EXPECT_EQ(flatten(g.pieces()), expected);
  EXPECT_EQ(g.pieces().size(), 2U);
}

TEST(PacketGather, KeepsEveryPieceOfALongGatherList) {
  Regions r(10);  // more SGEs than it holds without allocating
  const PacketGather g = PacketGather::of(r.qp, r.wqe(4), 0, 40, r.memory);
  ASSERT_EQ(g.pieces().size(), 10U);
  std::vector<uint8_t> expected;
  for (size_t i = 0; i < 10; ++i) {
    for (uint8_t b = 0; b < 4; ++b) expected.push_back(static_cast<uint8_t>(i * kRegion + b));
  }
  EXPECT_EQ(flatten(g.pieces()), expected);
}

TEST(PacketGather, SendsZerosWhereARegionWasDeregistered) {
  Regions r(2);
  const SendWqe w = r.wqe(kRegion);
  ASSERT_TRUE(r.memory.dereg_mr(r.mrs[1].lkey));
  const PacketGather g = PacketGather::of(r.qp, w, 60, 8, r.memory);
  EXPECT_EQ(flatten(g.pieces()), (std::vector<uint8_t>{60, 61, 62, 63, 0, 0, 0, 0}));
}

TEST(PacketGather, FillsAWholeMtuOfZerosWhenNothingCanBeRead) {
  Regions r(1);
  const SendWqe w = r.wqe(kRegion);
  ASSERT_TRUE(r.memory.dereg_mr(r.mrs[0].lkey));
  const PacketGather g = PacketGather::of(r.qp, w, 0, 9000, r.memory);
  EXPECT_EQ(g.size(), 9000U);
  EXPECT_EQ(flatten(g.pieces()), std::vector<uint8_t>(9000, 0));
}

}  // namespace
}  // namespace mr::transport
