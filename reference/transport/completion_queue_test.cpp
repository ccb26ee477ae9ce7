#include "reference/transport/completion_queue.h"

#include <gtest/gtest.h>

namespace mr::transport {
namespace {

Completion receive(bool solicited, WcStatus status = WcStatus::kSuccess) {
  Completion c;
  c.solicited = solicited;
  c.status = status;
  return c;
}

TEST(CompletionQueueTest, UnarmedQueueRaisesNoEvent) {
  CompletionQueue cq(8);
  ASSERT_TRUE(cq.push(receive(true)));
  EXPECT_EQ(cq.take_events(), 0u);
}

TEST(CompletionQueueTest, SolicitedArmingFiresOnlyOnSolicitedOrErrorCompletions) {
  CompletionQueue cq(8);
  cq.arm(/*solicited_only=*/true);
  ASSERT_TRUE(cq.push(receive(false)));
  EXPECT_EQ(cq.take_events(), 0u);
  ASSERT_TRUE(cq.push(receive(true)));
  EXPECT_EQ(cq.take_events(), 1u);
  cq.arm(true);
  ASSERT_TRUE(cq.push(receive(false, WcStatus::kWrFlushError)));
  EXPECT_EQ(cq.take_events(), 1u);
}

TEST(CompletionQueueTest, AnArmingRaisesAtMostOneEvent) {
  CompletionQueue cq(8);
  cq.arm(false);
  ASSERT_TRUE(cq.push(receive(false)));
  ASSERT_TRUE(cq.push(receive(true)));
  EXPECT_EQ(cq.take_events(), 1u);
  EXPECT_EQ(cq.take_events(), 0u);  // taken events are not reported twice
}

TEST(CompletionQueueTest, EventFaultsBreakTheRuleTheMutantsName) {
  CompletionQueue ignores(8);
  ignores.arm(true);
  ASSERT_TRUE(ignores.push(receive(false), EventFault::kIgnoreSolicited));
  EXPECT_EQ(ignores.take_events(), 1u);
  CompletionQueue silent(8);
  silent.arm(false);
  ASSERT_TRUE(silent.push(receive(true), EventFault::kNeverRaise));
  EXPECT_EQ(silent.take_events(), 0u);
}

}  // namespace
}  // namespace mr::transport
