#include "reference/io/impairment.h"

#include <gtest/gtest.h>

namespace mr::io {
namespace {

Frame numbered(uint8_t n, size_t size = 64) {
  Frame f;
  f.bytes.assign(size, 0);
  f.bytes[0] = n;  // the Ethernet destination's first byte: never corrupted
  return f;
}

std::vector<uint8_t> firsts(const std::vector<ImpairedFrame>& out) {
  std::vector<uint8_t> v;
  v.reserve(out.size());
  for (const auto& f : out) v.push_back(f.frame.bytes[0]);
  return v;
}

TEST(ImpairmentPolicy, PassesEverythingByDefault) {
  ImpairmentPolicy policy(1);
  std::vector<ImpairedFrame> out;
  for (uint8_t i = 0; i < 10; ++i) policy.apply(numbered(i), out);
  EXPECT_EQ(firsts(out), (std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(policy.counters().frames, 10U);
  EXPECT_EQ(policy.counters().count(ImpairmentAction::kPass), 10U);
}

TEST(ImpairmentPolicy, OverrideDropsExactlyTheChosenFrame) {
  ImpairmentPolicy policy(1);
  policy.set_override([](const Frame&, uint64_t i) -> std::optional<ImpairmentAction> {
    if (i == 2) return ImpairmentAction::kDrop;
    return std::nullopt;
  });
  std::vector<ImpairedFrame> out;
  for (uint8_t i = 0; i < 5; ++i) policy.apply(numbered(i), out);
  EXPECT_EQ(firsts(out), (std::vector<uint8_t>{0, 1, 3, 4}));
  EXPECT_EQ(policy.counters().count(ImpairmentAction::kDrop), 1U);
}

TEST(ImpairmentPolicy, ReorderSwapsWithTheNextFrame) {
  ImpairmentPolicy policy(1);
  policy.set_override([](const Frame& f, uint64_t) -> std::optional<ImpairmentAction> {
    if (f.bytes[0] == 1) return ImpairmentAction::kReorder;
    return std::nullopt;
  });
  std::vector<ImpairedFrame> out;
  for (uint8_t i = 0; i < 4; ++i) policy.apply(numbered(i), out);
  EXPECT_EQ(firsts(out), (std::vector<uint8_t>{0, 2, 1, 3}));
}

TEST(ImpairmentPolicy, ReorderedFrameIsReleasedEvenIfTheNextIsDropped) {
  ImpairmentPolicy policy(1);
  policy.set_override([](const Frame&, uint64_t i) -> std::optional<ImpairmentAction> {
    if (i == 0) return ImpairmentAction::kReorder;
    return ImpairmentAction::kDrop;
  });
  std::vector<ImpairedFrame> out;
  policy.apply(numbered(0), out);
  EXPECT_TRUE(out.empty());
  policy.apply(numbered(1), out);
  EXPECT_EQ(firsts(out), (std::vector<uint8_t>{0}));
  EXPECT_FALSE(policy.release_held());
}

TEST(ImpairmentPolicy, DuplicateDelayAndCorrupt) {
  ImpairmentPolicy policy(7, {}, 5'000);
  policy.set_override([](const Frame&, uint64_t i) -> std::optional<ImpairmentAction> {
    constexpr ImpairmentAction kPlan[] = {ImpairmentAction::kDuplicate, ImpairmentAction::kDelay,
                                          ImpairmentAction::kCorrupt};
    return kPlan[i];
  });
  std::vector<ImpairedFrame> out;
  for (uint8_t i = 0; i < 3; ++i) policy.apply(numbered(i), out);
  ASSERT_EQ(firsts(out), (std::vector<uint8_t>{0, 0, 1, 2}));
  EXPECT_EQ(out[2].extra_delay_ns, 5'000U);
  // Exactly one byte changed, and not in the Ethernet header.
  const Frame original = numbered(2);
  size_t changed = 0;
  for (size_t i = 0; i < original.bytes.size(); ++i) {
    if (out[3].frame.bytes[i] != original.bytes[i]) {
      ++changed;
      EXPECT_GE(i, 14U);
    }
  }
  EXPECT_EQ(changed, 1U);
}

TEST(ImpairmentPolicy, RatesFollowTheProbabilities) {
  ImpairmentPolicy policy(42, {.drop = 0.1, .duplicate = 0.05, .corrupt = 0.2});
  std::vector<ImpairedFrame> out;
  constexpr int kFrames = 20000;
  for (int i = 0; i < kFrames; ++i) policy.apply(numbered(0), out);
  const auto& c = policy.counters();
  EXPECT_NEAR(c.count(ImpairmentAction::kDrop) / double{kFrames}, 0.1, 0.01);
  EXPECT_NEAR(c.count(ImpairmentAction::kDuplicate) / double{kFrames}, 0.05, 0.01);
  EXPECT_NEAR(c.count(ImpairmentAction::kCorrupt) / double{kFrames}, 0.2, 0.01);
  EXPECT_EQ(c.count(ImpairmentAction::kReorder), 0U);
  EXPECT_EQ(policy.seed(), 42U);
}

TEST(ImpairmentPolicy, SameSeedSameFate) {
  auto run = [](uint64_t seed) {
    ImpairmentPolicy policy(seed, {.drop = 0.1, .duplicate = 0.1, .reorder = 0.1, .corrupt = 0.1});
    std::vector<ImpairedFrame> out;
    for (int i = 0; i < 1000; ++i) policy.apply(numbered(static_cast<uint8_t>(i)), out);
    std::vector<std::vector<uint8_t>> bytes;
    bytes.reserve(out.size());
    for (auto& f : out) bytes.push_back(f.frame.bytes);
    return bytes;
  };
  EXPECT_EQ(run(9), run(9));
  EXPECT_NE(run(9), run(10));
}

TEST(ImpairmentPolicy, ActionsHaveNames) {
  EXPECT_EQ(impairment_action_name(ImpairmentAction::kReorder), "reorder");
  EXPECT_EQ(impairment_action_name(ImpairmentAction::kCorrupt), "corrupt");
  EXPECT_EQ(impairment_action_name(ImpairmentAction::kEcn), "ecn");
}

// An IPv4 frame with ECT(0), as RoCEv2 senders mark theirs.
Frame ipv4_ect0() {
  Frame f;
  f.bytes.assign(14 + 20 + 8, 0);
  f.bytes[12] = 0x08;
  f.bytes[14] = 0x45;
  f.bytes[15] = 0x02;
  return f;
}

TEST(ImpairmentPolicy, EcnMarksTheChosenShareCongestionExperienced) {
  ImpairmentPolicy policy(3, {.ecn = 0.25});
  std::vector<ImpairedFrame> out;
  constexpr int kFrames = 8000;
  for (int i = 0; i < kFrames; ++i) policy.apply(ipv4_ect0(), out);
  ASSERT_EQ(out.size(), size_t{kFrames});  // marked, never dropped
  size_t marked = 0;
  for (const auto& f : out) marked += (f.frame.bytes[15] & 0x03) == 0x03 ? 1 : 0;
  EXPECT_EQ(marked, policy.counters().count(ImpairmentAction::kEcn));
  EXPECT_NEAR(static_cast<double>(marked) / kFrames, 0.25, 0.02);
}

// The ECN edge comes after every older one: a policy that does not use it decides every
// frame as it did before ECN existed.
TEST(ImpairmentPolicy, AnUnusedEcnRateLeavesEveryOtherDecisionUnchanged) {
  const ImpairmentProbabilities without{.drop = 0.1, .reorder = 0.1, .corrupt = 0.1};
  ImpairmentProbabilities with = without;
  with.ecn = 0.2;
  ImpairmentPolicy a(11, without);
  ImpairmentPolicy b(11, with);
  std::vector<ImpairedFrame> out_a;
  std::vector<ImpairedFrame> out_b;
  for (int i = 0; i < 2000; ++i) {
    a.apply(ipv4_ect0(), out_a);
    b.apply(ipv4_ect0(), out_b);
  }
  for (auto action :
       {ImpairmentAction::kDrop, ImpairmentAction::kReorder, ImpairmentAction::kCorrupt}) {
    EXPECT_EQ(a.counters().count(action), b.counters().count(action));
  }
  EXPECT_EQ(a.counters().count(ImpairmentAction::kEcn), 0U);
  EXPECT_GT(b.counters().count(ImpairmentAction::kEcn), 0U);
}

}  // namespace
}  // namespace mr::io
