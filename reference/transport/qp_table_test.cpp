// QpTable against std::map under seeded random inserts and erases (the erase path moves
// entries back along their probe run, the case most likely to lose a QP), plus its edges:
// QPN 0, duplicates, absent QPNs, pointer stability across growth.
#include "reference/transport/qp_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace mr::transport {
namespace {

std::unique_ptr<QueuePair> make_qp(uint32_t qpn) {
  auto qp = std::make_unique<QueuePair>();
  qp->qpn = qpn;
  return qp;
}

TEST(QpTable, EmptyTableFindsNothing) {
  QpTable t;
  EXPECT_EQ(t.find(5), t.end());
  EXPECT_FALSE(t.contains(5));
  EXPECT_EQ(t.erase(5), 0U);
  EXPECT_EQ(t.size(), 0U);
}

TEST(QpTable, RejectsQpnZeroAndDuplicates) {
  QpTable t;
  EXPECT_FALSE(t.emplace(0, make_qp(0)).second);
  EXPECT_TRUE(t.emplace(7, make_qp(7)).second);
  auto [it, added] = t.emplace(7, make_qp(99));
  EXPECT_FALSE(added);
  EXPECT_EQ(it->second->qpn, 7U) << "the first QP stays";
  EXPECT_EQ(t.size(), 1U);
  EXPECT_FALSE(t.contains(0));
}

TEST(QpTable, QueuePairsKeepTheirAddressWhileTheTableGrows) {
  QpTable t;
  t.emplace(0x123456, make_qp(0x123456));
  const QueuePair* first = t.find(0x123456)->second.get();
  for (uint32_t q = 2; q < 5000; ++q) t.emplace(q, make_qp(q));
  ASSERT_NE(t.find(0x123456), t.end());
  EXPECT_EQ(t.find(0x123456)->second.get(), first);
}

TEST(QpTable, MatchesStdMapUnderRandomInsertsAndErases) {
  for (uint64_t seed : {1ULL, 2ULL, 3ULL}) {
    std::mt19937_64 rng(seed);
    QpTable t;
    std::map<uint32_t, const QueuePair*> model;
    // A small key space so that erases hit present QPNs and probe runs collide often.
    std::uniform_int_distribution<uint32_t> key(1, 3000);
    for (int op = 0; op < 200'000; ++op) {
      const uint32_t q = key(rng);
      if (rng() % 3 == 0) {
        EXPECT_EQ(t.erase(q), model.erase(q)) << "seed " << seed << " op " << op;
      } else {
        auto qp = make_qp(q);
        const QueuePair* raw = qp.get();
        const bool added = t.emplace(q, std::move(qp)).second;
        EXPECT_EQ(added, model.emplace(q, raw).second) << "seed " << seed << " op " << op;
      }
      ASSERT_EQ(t.size(), model.size()) << "seed " << seed << " op " << op;
    }
    for (uint32_t q = 0; q <= 3001; ++q) {
      auto it = t.find(q);
      auto m = model.find(q);
      ASSERT_EQ(it != t.end(), m != model.end()) << "seed " << seed << " qpn " << q;
      if (m != model.end()) {
        EXPECT_EQ(it->first, q);
        EXPECT_EQ(it->second.get(), m->second) << "seed " << seed << " qpn " << q;
      }
    }
  }
}

TEST(QpTable, FullTwentyFourBitQpnsAreFoundAfterManyErases) {
  QpTable t;
  std::mt19937 rng(9);
  std::vector<uint32_t> qpns;
  for (int i = 0; i < 20'000; ++i) {
    const uint32_t q = 2 + rng() % 0xfffffd;
    if (t.emplace(q, make_qp(q)).second) qpns.push_back(q);
  }
  for (size_t i = 0; i < qpns.size(); i += 2) EXPECT_EQ(t.erase(qpns[i]), 1U);
  for (size_t i = 0; i < qpns.size(); ++i) {
    EXPECT_EQ(t.contains(qpns[i]), i % 2 == 1) << "qpn " << qpns[i];
  }
  EXPECT_EQ(t.size(), qpns.size() / 2);
}

}  // namespace
}  // namespace mr::transport
