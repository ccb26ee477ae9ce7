#include "harness/engine/waiting_op.h"

#include <gtest/gtest.h>

namespace mr::engine {
namespace {

using nlohmann::json;

TEST(WaitingOp, PollCqEndsAtTheFirstCompletion) {
  EXPECT_EQ(wait_satisfied("poll_cq", json{{"completions", json::array()}}), false);
  EXPECT_EQ(wait_satisfied("poll_cq", json{{"completions", json::array({json{{"wr_id", 1}}})}}),
            true);
  EXPECT_EQ(wait_satisfied("poll_cq", json::object()), false);  // a reply without the list
}

TEST(WaitingOp, GetCqEventEndsAtTheFirstEvent) {
  EXPECT_EQ(wait_satisfied("get_cq_event", json{{"events", 0}}), false);
  EXPECT_EQ(wait_satisfied("get_cq_event", json{{"events", 2}}), true);
}

TEST(WaitingOp, OtherOpsDoNotWait) {
  EXPECT_FALSE(wait_satisfied("post_send", json::object()).has_value());
  EXPECT_FALSE(is_waiting_op("counters"));
  EXPECT_TRUE(is_waiting_op("poll_cq"));
  EXPECT_TRUE(is_waiting_op("get_cq_event"));
}

}  // namespace
}  // namespace mr::engine
