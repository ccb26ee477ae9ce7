// File: ev_selector_test.cpp
#include "reference/transport/ext/ev_selector.h"

#include <gtest/gtest.h>

#include <set>

namespace mr::transport::ext {
namespace {

EvTable table(unsigned count) {
  auto t =
      EvTable::create(EvTable::default_set(0x12, 2, count), PathFailureParameters{.min_active = 1});
  EXPECT_TRUE(t) << t.error();
  return std::move(*t);
}

TEST(EvSelector, ObliviousWalksTheSetInListOrder) {
  const EvTable t = table(4);
  EvSelector s(EvSelectionMode::kOblivious, {});
  std::vector<size_t> used;
  used.reserve(6);
  for (int k = 0; k < 6; ++k) used.push_back(*s.first_transmission(t, 0));
  EXPECT_EQ(used, (std::vector<size_t>{0, 1, 2, 3, 0, 1}));
}

TEST(EvSelector, ObliviousSkipsEntriesThatAreNotUsable) {
  EvTable t = table(4);  // entries 1 and 3 on plane 1
  t.on_rto(2, 0);
  t.port_down(1, 0);
  EvSelector s(EvSelectionMode::kOblivious, {});
  for (int k = 0; k < 4; ++k) EXPECT_EQ(s.first_transmission(t, 0), 0u);
  t.deny(0);
  EXPECT_FALSE(s.first_transmission(t, 0));  // nothing usable
}

TEST(EvSelector, WithoutMultipathEveryPacketTakesTheFirstUsableEntry) {
  EvTable t = table(4);
  EvSelector s(EvSelectionMode::kSingle, {});
  EXPECT_EQ(s.first_transmission(t, 0), 0u);
  EXPECT_EQ(s.first_transmission(t, 0), 0u);
  EXPECT_EQ(s.retransmission(t, 0, 0), 0u);
  t.on_rto(0, 0);
  EXPECT_EQ(s.first_transmission(t, 0), 1u);
}

TEST(EvSelector, ARetransmissionAvoidsThePreviousEntryWhenAnotherIsUsable) {
  EvTable t = table(2);
  for (auto mode : {EvSelectionMode::kOblivious, EvSelectionMode::kAdaptive}) {
    EvSelector s(mode, {});
    for (size_t previous : {0u, 1u, 0u, 1u}) EXPECT_NE(s.retransmission(t, 0, previous), previous);
  }
  t.deny(1);
  EvSelector s(EvSelectionMode::kOblivious, {});
  EXPECT_EQ(s.retransmission(t, 0, 0), 0u);  // the only usable one
}

TEST(EvSelector, AMarkedEntryIsHeldForTheNextRequestPackets) {
  const EvTable t = table(8);
  EvSelector s(EvSelectionMode::kAdaptive, AdaptiveParameters{.hold = 32});
  s.on_feedback(t, 0, 3, EvFeedback::kMarked);
  for (int k = 0; k < 32; ++k) EXPECT_NE(s.first_transmission(t, 0), 3u) << k;
  EXPECT_EQ(s.hold(3), 0u);
  bool used = false;
  for (int k = 0; k < 16; ++k) used |= s.first_transmission(t, 0) == 3u;
  EXPECT_TRUE(used);  // free again, the cursor reaches it
}

TEST(EvSelector, ACleanEntryIsReusedFromTheRecycleList) {
  const EvTable t = table(8);
  EvSelector s(EvSelectionMode::kAdaptive, AdaptiveParameters{.explore_every = 4});
  s.on_feedback(t, 0, 5, EvFeedback::kClean);
  s.on_feedback(t, 0, 6, EvFeedback::kClean);
  // First transmissions 1, 2, 3 take R in order; the 4th explores with the cursor.
  EXPECT_EQ(s.first_transmission(t, 0), 5u);
  EXPECT_EQ(s.first_transmission(t, 0), 6u);
  EXPECT_EQ(s.first_transmission(t, 0), 0u);  // R is empty: the cursor
  EXPECT_EQ(s.first_transmission(t, 0), 1u);  // exploration
  s.on_feedback(t, 0, 7, EvFeedback::kClean);
  EXPECT_EQ(s.first_transmission(t, 0), 7u);
}

TEST(EvSelector, EveryNthFirstTransmissionExploresEvenWithARecycleList) {
  const EvTable t = table(8);
  EvSelector s(EvSelectionMode::kAdaptive, AdaptiveParameters{.explore_every = 2});
  for (int k = 0; k < 8; ++k) s.on_feedback(t, 0, 4, EvFeedback::kClean);
  EXPECT_EQ(s.first_transmission(t, 0), 4u);  // k = 1: from R
  EXPECT_EQ(s.first_transmission(t, 0), 0u);  // k = 2: explore
}

TEST(EvSelector, WhenEveryUsableEntryIsHeldTheHoldsAreIgnored) {
  const EvTable t = table(2);
  EvSelector s(EvSelectionMode::kAdaptive, {});
  s.on_feedback(t, 0, 0, EvFeedback::kMarked);
  s.on_feedback(t, 0, 1, EvFeedback::kMarked);
  EXPECT_TRUE(s.first_transmission(t, 0));
}

TEST(EvSelector, FeedbackThatIsNotThePathsChangesNothing) {
  const EvTable t = table(4);
  EvSelector s(EvSelectionMode::kAdaptive, {});
  s.on_feedback(t, 0, 2, EvFeedback::kNone);
  EXPECT_EQ(s.hold(2), 0u);
  EXPECT_EQ(s.first_transmission(t, 0), 0u);  // R is empty: the cursor from the start
}

TEST(EvSelector, ObliviousSprayingBalancesTheUsableEntries) {
  const EvTable t = table(16);
  EvSelector s(EvSelectionMode::kOblivious, {});
  std::vector<int> count(16);
  for (int k = 0; k < 16 * 1024; ++k) ++count[*s.first_transmission(t, 0)];
  for (int c : count) EXPECT_EQ(c, 1024);
}

// Spec EX-E4: FLOW mode, EV 0x4C11 on plane 2.
TEST(EvEncoding, FlowModeFoldsTheFlowLabelIntoTheUdpSourcePort) {
  const EvEncoding e = encode_flow({.ev = 0x4C11, .plane = 2});
  EXPECT_EQ(e.flow_label, 0x24C11u);
  EXPECT_EQ(e.udp_source_port, 0xCC18);
}

TEST(EvEncoding, UdpModeSendsTheEvAsTheSourcePort) {
  const EvEncoding e = encode_udp({.ev = 0xC005, .plane = 1}, 0x12345);
  EXPECT_EQ(e.udp_source_port, 0xC005);
  EXPECT_EQ(e.flow_label, 0x12345u);
}

}  // namespace
}  // namespace mr::transport::ext
