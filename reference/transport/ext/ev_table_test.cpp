// File: ev_table_test.cpp
#include "reference/transport/ext/ev_table.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

constexpr uint64_t kUs = 1'000;
constexpr uint64_t kMs = 1'000'000;

EvTable table(unsigned count, PathFailureParameters p = {}) {
  auto t = EvTable::create(EvTable::default_set(0x12, 2, count), p);
  EXPECT_TRUE(t) << t.error();
  return std::move(*t);
}

TEST(EvTable, RefusesABadSetNamingTheEntry) {
  EXPECT_EQ(EvTable::create({}, {}).error(), "ev_set: 0 entries; give 1 to 4096");
  EXPECT_EQ(EvTable::create({{.ev = 1}, {.ev = 0}}, {}).error(),
            "ev_set[1].ev: 0 is not an entropy value");
  EXPECT_EQ(EvTable::create({{.ev = 1, .plane = 16}}, {}).error(),
            "ev_set[0].plane: 16; planes are 0 to 15");
  EXPECT_EQ(EvTable::create({{.ev = 7}, {.ev = 7}}, {}).error(), "ev_set[1].ev: 7 is listed twice");
}

TEST(EvTable, DefaultSetFollowsSection20_1) {
  const auto set = EvTable::default_set(0x12, 2, 4);
  ASSERT_EQ(set.size(), 4u);
  EXPECT_EQ(set[0].ev, 0xC120);
  EXPECT_EQ(set[3].ev, 0xC123);
  EXPECT_EQ(set[2].plane, 0);
  EXPECT_EQ(set[3].plane, 1);
  EXPECT_EQ(EvTable::default_set(1023, 1, 20)[19].ev, 0xC000 | ((16 * 1023 + 19) % 16384));
}

TEST(EvTable, ATimeoutMakesAnEntryAssumedBadButNeverBelowTheMinimumActive) {
  EvTable t = table(6);  // N_EV_MIN_ACTIVE 4
  t.on_rto(0, 0);
  t.on_rto(1, 0);
  t.on_rto(2, 0);  // 4 GOOD left: stays GOOD
  EXPECT_EQ(t.state(0), EvState::kAssumedBad);
  EXPECT_EQ(t.state(1), EvState::kAssumedBad);
  EXPECT_EQ(t.state(2), EvState::kGood);
  EXPECT_EQ(t.good_count(), 4u);
  EXPECT_EQ(t.counters().ev_assumed_bad, 2u);
  EXPECT_FALSE(t.usable(0, 0));
  EXPECT_TRUE(t.usable(2, 0));
}

TEST(EvTable, ProbesAtADoublingIntervalUpToTheMaximum) {
  EvTable t = table(8);
  t.on_rto(0, 0);
  std::vector<uint64_t> probes;
  for (uint64_t now = 0; now <= 40 * kMs; now += 10 * kUs) {
    if (!t.due_probes(now).empty()) probes.push_back(now);
  }
  ASSERT_GE(probes.size(), 9u);
  EXPECT_EQ(probes[0], 100 * kUs);
  EXPECT_EQ(probes[1], 300 * kUs);             // + 200
  EXPECT_EQ(probes[2], 700 * kUs);             // + 400
  EXPECT_EQ(probes[7] - probes[6], 10 * kMs);  // capped at T_PROBE_INTERVAL_MAX
  EXPECT_EQ(probes[8] - probes[7], 10 * kMs);
}

// The device sleeps until next_due_ns(): it names each probe due_probes() then gives, and
// nothing without an ASSUMED_BAD entry.
TEST(EvTable, NextDueTimeIsWhenTheNextProbeIsDue) {
  EvTable t = table(8);
  EXPECT_FALSE(t.next_due_ns());
  t.on_rto(0, 0);
  for (int k = 0; k < 5; ++k) {
    const std::optional<uint64_t> due = t.next_due_ns();
    ASSERT_TRUE(due);
    EXPECT_TRUE(t.due_probes(*due - 1).empty());
    EXPECT_EQ(t.due_probes(*due), std::vector<size_t>{0});
  }
  t.on_probe_answer(0, *t.next_due_ns());
  EXPECT_FALSE(t.next_due_ns());
}

// Without PATHPROBE it is the end of the hold-down, when due_probes() returns the entry to
// GOOD: an idle QP is woken for it, so query_qp never reports a stale ASSUMED_BAD.
TEST(EvTable, WithoutProbesTheNextDueTimeIsTheEndOfTheHoldDown) {
  EvTable quiet = table(8, PathFailureParameters{.path_probe = false});
  quiet.on_rto(0, 5 * kUs);
  ASSERT_EQ(quiet.next_due_ns(), 5 * kUs + 10 * kMs);  // T_EV_HOLDDOWN
  quiet.due_probes(5 * kUs + 10 * kMs - 1);
  EXPECT_EQ(quiet.state(0), EvState::kAssumedBad);
  EXPECT_TRUE(quiet.due_probes(5 * kUs + 10 * kMs).empty());  // nothing to probe
  EXPECT_EQ(quiet.state(0), EvState::kGood);
  EXPECT_FALSE(quiet.next_due_ns());
  EXPECT_EQ(quiet.counters().ev_good, 0u);  // section 25.1: a hold-down's end raises no event
}

TEST(EvTable, AProbeAnswerReturnsTheEntryToGood) {
  EvTable t = table(8);
  t.on_rto(3, 0);
  t.on_probe_answer(3, 150 * kUs);
  EXPECT_EQ(t.state(3), EvState::kGood);
  EXPECT_EQ(t.counters().ev_good, 1u);
  t.on_probe_answer(3, 160 * kUs);  // a GOOD entry's answer changes nothing
  EXPECT_EQ(t.counters().ev_good, 1u);
}

TEST(EvTable, WithoutPathProbeAnEntryReturnsAfterTheHoldDown) {
  EvTable t = table(8, PathFailureParameters{.path_probe = false});
  t.on_rto(0, 0);
  EXPECT_TRUE(t.due_probes(10 * kMs - 1).empty());
  EXPECT_EQ(t.state(0), EvState::kAssumedBad);
  EXPECT_TRUE(t.due_probes(10 * kMs).empty());  // no probes without PATHPROBE
  EXPECT_EQ(t.state(0), EvState::kGood);
}

TEST(EvTable, AnEntryThatFlapsIsDampedAndHeldLonger) {
  EvTable t = table(8);
  for (uint64_t failure = 0; failure < 3; ++failure) {
    const uint64_t at = failure * 10 * kMs;
    t.on_rto(0, at);
    if (failure < 2) t.on_probe_answer(0, at + 1 * kMs);
  }
  EXPECT_TRUE(t.damped(0, 20 * kMs));
  EXPECT_EQ(t.counters().ev_damped, 1u);
  t.on_probe_answer(0, 21 * kMs);  // damped: not before T_PF_FLAP_HOLD after the last failure
  EXPECT_EQ(t.state(0), EvState::kAssumedBad);
  t.on_probe_answer(0, 20 * kMs + 500 * kMs);
  EXPECT_EQ(t.state(0), EvState::kGood);
}

TEST(EvTable, RepeatedAckPathLossesWithinTheWindowMakeAnEntryAssumedBad) {
  EvTable t = table(8);
  t.on_ack_path_loss(1, 0);
  t.on_ack_path_loss(1, 11 * kMs);  // the first has left the 10 ms window
  t.on_ack_path_loss(1, 12 * kMs);
  EXPECT_EQ(t.state(1), EvState::kGood);
  t.on_ack_path_loss(1, 13 * kMs);
  EXPECT_EQ(t.state(1), EvState::kAssumedBad);
  EXPECT_EQ(t.counters().ev_ack_path_bad, 1u);
  EXPECT_EQ(t.counters().ev_assumed_bad, 0u);
}

TEST(EvTable, ASpuriousTimeoutReturnsTheEntryToGood) {
  EvTable t = table(8);
  t.on_rto(2, 0);
  t.on_spurious_rto(2);
  EXPECT_EQ(t.state(2), EvState::kGood);
  EXPECT_EQ(t.counters().ev_spurious_rto, 1u);
}

TEST(EvTable, ManagementDeniesAndAllowsAnEntry) {
  EvTable t = table(8);
  t.deny(4);
  EXPECT_EQ(t.state(4), EvState::kDenied);
  EXPECT_FALSE(t.usable(4, 0));
  t.on_probe_answer(4, 1 * kMs);  // a probe answer does not undo a denial
  EXPECT_EQ(t.state(4), EvState::kDenied);
  t.allow(4);
  EXPECT_EQ(t.state(4), EvState::kGood);
}

// Section 25.1: "any | management denies" and "DENIED | management allows". Allowing an
// entry that is not DENIED changes nothing: an ASSUMED_BAD one waits for its probe or
// hold-down. A denied ASSUMED_BAD entry no longer counts as ASSUMED_BAD.
TEST(EvTable, ManagementAllowsOnlyADeniedEntryAndDenialOverridesAssumedBad) {
  EvTable t = table(8);
  t.on_rto(2, 0);
  ASSERT_EQ(t.state(2), EvState::kAssumedBad);
  t.allow(2);
  EXPECT_EQ(t.state(2), EvState::kAssumedBad);
  t.allow(3);
  EXPECT_EQ(t.state(3), EvState::kGood);
  t.deny(2);
  EXPECT_EQ(t.state(2), EvState::kDenied);
  EXPECT_FALSE(t.any_assumed_bad());
  EXPECT_TRUE(t.due_probes(1 * kMs).empty());  // a denied entry is not probed
  t.allow(2);
  EXPECT_EQ(t.state(2), EvState::kGood);
  EXPECT_TRUE(t.usable(2, 1 * kMs));
  EXPECT_EQ(to_string(EvState::kAssumedBad), "ASSUMED_BAD");  // the names the agent reports
}

TEST(EvTable, APlaneWhosePortIsDownIsUnusableUntilItsHoldAfterUp) {
  EvTable t = table(8);  // even entries on plane 0, odd on plane 1
  t.port_down(1, 0);
  EXPECT_FALSE(t.usable(1, 0));
  EXPECT_TRUE(t.usable(0, 0));
  t.port_up(1, 5 * kMs);
  EXPECT_FALSE(t.usable(1, 5 * kMs + 999 * kUs));
  EXPECT_TRUE(t.usable(1, 6 * kMs));
}

TEST(EvTable, AFlappingPortIsHeldForTheFlapHold) {
  EvTable t = table(8);
  for (uint64_t k = 0; k < 3; ++k) {
    t.port_down(0, k * 10 * kMs);
    t.port_up(0, k * 10 * kMs + kMs);
  }
  EXPECT_FALSE(t.usable(0, 21 * kMs + 499 * kMs));
  EXPECT_TRUE(t.usable(0, 21 * kMs + 500 * kMs));
}

}  // namespace
}  // namespace mr::transport::ext
