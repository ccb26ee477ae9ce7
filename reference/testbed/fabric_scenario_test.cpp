// The scenarios of `bench fabric` at a size a unit test affords: Part II against base
// RoCEv2 on the same fabric and seed, every flow's bytes checked at its receiver.
#include "reference/testbed/fabric_scenario.h"

#include <gtest/gtest.h>

#include "reference/testbed/scenario_catalog.h"

namespace mr::testbed {
namespace {

struct SideBySide {
  ScenarioOutcome ext, base;
};

SideBySide run_both(Scenario s) {
  SideBySide r;
  r.ext = run_scenario(s).value();
  s.mxcap.reset();
  r.base = run_scenario(s).value();
  return r;
}

TEST(FabricScenario, ASilentPlaneFailureCostsExtNoMessageAndBaseTheQpsOnThatPlane) {
  const auto r =
      run_both(plane_failure({.planes = 4, .hosts = 8, .bytes = 1 << 20, .fail_at_ns = 20'000}));
  ASSERT_TRUE(r.ext.failed_plane.has_value());
  EXPECT_EQ(r.ext.failed_plane, r.base.failed_plane);  // the same plane in both runs
  EXPECT_EQ(r.ext.completed, 4u);
  EXPECT_EQ(r.ext.failed, 0u);
  EXPECT_EQ(r.ext.data_mismatches, 0u);
  EXPECT_GT(r.ext.fabric_drops, 0u) << "the failure must have cost Ext packets";
  // Flow 0's base QP keeps to the failed plane: go-back-N retries it to retry-exceeded.
  EXPECT_TRUE(r.base.flows[0].failed);
  EXPECT_EQ(r.base.data_mismatches, 0u);
}

TEST(FabricScenario, ReadsCompleteUnderLossWithEveryByteWhereBaseRoceStalls) {
  Scenario s = random_loss(0.01, 2 << 20);
  s.opcode = transport::SendOpcode::kRead;
  s.max_ns = 200'000'000;
  const auto r = run_both(s);
  EXPECT_EQ(r.ext.completed, 1u);
  EXPECT_EQ(r.ext.data_mismatches, 0u);
  EXPECT_GT(r.ext.fabric_drops, 0u);
  // Base go-back-N re-reads from the lost response and waits its 67 ms timer for each lost
  // tail: within 200 ms it has not finished, or finished far later.
  EXPECT_TRUE(r.base.completed == 0 || r.base.last_finish_ns > 10 * r.ext.last_finish_ns);
}

TEST(FabricScenario, RandomLossCostsExtOnlyTheLostPacketsAndBaseGoBackN) {
  const auto r = run_both(random_loss(0.01, 2 << 20));
  ASSERT_EQ(r.ext.completed, 1u);
  ASSERT_EQ(r.base.completed, 1u);
  EXPECT_EQ(r.ext.data_mismatches + r.base.data_mismatches, 0u);
  EXPECT_GT(r.ext.fabric_drops, 0u);
  // Selective: about one retransmission per lost request (ACK losses cost a few more).
  EXPECT_LE(r.ext.retransmitted(), 2 * r.ext.fabric_drops);
  EXPECT_GT(r.base.retransmitted(), r.ext.retransmitted());
  EXPECT_LT(r.ext.last_finish_ns, r.base.last_finish_ns);
}

TEST(FabricScenario, IncastCompletesEverySenderNearTheIdeal) {
  const uint32_t senders = 8;
  const uint64_t bytes = 256 * 1024;
  const auto r = run_both(incast(senders, bytes));
  EXPECT_EQ(r.ext.completed, senders);
  EXPECT_EQ(r.ext.data_mismatches, 0u);
  const uint64_t ideal = ideal_ns(senders * bytes, 100e9);
  EXPECT_LE(r.ext.last_finish_ns, 3 * ideal) << "ideal " << ideal << " ns";
  EXPECT_LE(r.ext.percentile_finish_ns(99), r.base.percentile_finish_ns(99) + ideal / 10);
}

// Section 23: with trimming switches a full queue cuts a data packet instead of dropping it,
// the receiver's NAK 0x65/0x66 brings it back at once, and every flow completes with its
// bytes; without TRIM agreed the same fabric's cut packets are losses the SACK repairs.
TEST(FabricScenario, TrimmingTurnsIncastDropsIntoTrimNaks) {
  const uint32_t senders = 16;
  const uint64_t bytes = 512 * 1024;
  const auto trimmed = run_scenario(with_trimming(incast(senders, bytes))).value();
  EXPECT_EQ(trimmed.completed, senders);
  EXPECT_EQ(trimmed.data_mismatches, 0u);
  EXPECT_GT(trimmed.fabric_trims, 0u);
  EXPECT_GT(trimmed.trim_naks, trimmed.fabric_trims / 2);
  EXPECT_LT(trimmed.overflow_drops, trimmed.fabric_trims / 10);
  const auto dropped = run_scenario(incast(senders, bytes)).value();
  EXPECT_EQ(dropped.completed, senders);
  EXPECT_EQ(dropped.fabric_trims, 0u);
  EXPECT_EQ(dropped.trim_naks, 0u);
  EXPECT_GT(dropped.overflow_drops, 0u);
  Scenario no_trim_agreed = with_trimming(incast(senders, bytes));
  no_trim_agreed.mxcap->features = no_trim_agreed.mxcap->features & ~wire::kMxcapTrim;
  const auto unread = run_scenario(no_trim_agreed).value();
  EXPECT_EQ(unread.completed, senders);
  EXPECT_EQ(unread.data_mismatches, 0u);
  EXPECT_GT(unread.fabric_trims, 0u);
  EXPECT_EQ(unread.trim_naks, 0u);  // MR-TR-08: a cut packet is a bad one
}

// Only the unsolicited first burst can overflow the last hop; after it the receiver's grants
// pace every sender, retransmissions included.
TEST(FabricScenario, ReceiverCreditsLeaveAnIncastOnlyItsUnsolicitedBurstToLose) {
  const uint32_t senders = 64;
  const uint64_t bytes = 256 * 1024;
  const auto credited = run_scenario(with_credits(incast(senders, bytes))).value();
  EXPECT_EQ(credited.completed, senders);
  EXPECT_EQ(credited.data_mismatches, 0u);
  EXPECT_GT(credited.credit_raises, 0u);
  const uint64_t unsolicited_packets = senders * 32 * 1024 / 4096;
  EXPECT_LT(credited.overflow_drops, unsolicited_packets);
  const auto dropped = run_scenario(incast(senders, bytes)).value();
  EXPECT_EQ(dropped.completed, senders);
  EXPECT_EQ(dropped.credit_raises, 0u);  // MR-CR-01: no credit without CREDIT agreed
  EXPECT_GT(dropped.overflow_drops, 2 * unsolicited_packets);
  EXPECT_LT(credited.retransmitted() * 4, dropped.retransmitted());
  // Short flows pay for the burst and the stall bound (2 MiB ones reach 1.07x, bench fabric).
  EXPECT_LT(credited.last_finish_ns, ideal_ns(senders * bytes, 100e9) * 2);
}

TEST(FabricScenario, TheSameSeedReplaysTheSameRun) {
  const Scenario s = random_loss(0.02, 1 << 20, /*seed=*/9);
  const ScenarioOutcome a = run_scenario(s).value(), b = run_scenario(s).value();
  EXPECT_EQ(a.last_finish_ns, b.last_finish_ns);
  EXPECT_EQ(a.request_frames, b.request_frames);
  EXPECT_EQ(a.fabric_events, b.fabric_events);
  const ScenarioOutcome c = run_scenario(random_loss(0.02, 1 << 20, /*seed=*/10)).value();
  EXPECT_NE(a.fabric_drops * 1'000'000 + a.last_finish_ns,
            c.fabric_drops * 1'000'000 + c.last_finish_ns);
}

TEST(FabricScenario, ErrorsNameTheFlowOrFieldAtFault) {
  Scenario s = random_loss(0.0, 4096);
  s.flows.push_back({.src = 0, .dst = 9, .bytes = 10});
  auto bad = run_scenario(s);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("flows[1]"), std::string::npos) << bad.error();

  s = random_loss(0.0, 4096);
  s.failure = PlaneFailure{.at_ns = 0, .plane = 3};
  bad = run_scenario(s);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("failure.plane"), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace mr::testbed
