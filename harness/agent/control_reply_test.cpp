// The agent's replies carry 64-bit values (va, length, wr_id, counters) as JSON integers
// while a double holds them exactly, and as decimal strings above 2^53 - 1, which
// JavaScript and jq would otherwise round (docs/dut-control-protocol.md, "Numbers").
#include "harness/agent/control_reply.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace mr::agent {
namespace {

constexpr uint64_t kTwoTo53 = uint64_t{1} << 53;

TEST(ControlReply, ACompletionsWideWrIdIsItsDecimalString) {
  transport::Completion c;
  c.wr_id = UINT64_MAX;
  EXPECT_EQ(to_json(c)["wr_id"], Json("18446744073709551615"));
  c.wr_id = kTwoTo53 - 1;
  EXPECT_EQ(to_json(c)["wr_id"], Json(kTwoTo53 - 1));
}

TEST(ControlReply, ARegionAboveTwoTo53ReadsBackExactly) {
  const Json j = to_json(MrResult{.lkey = 1, .rkey = 2, .va = kTwoTo53 + 1, .length = 4096});
  EXPECT_EQ(j["va"], Json("9007199254740993"));
  EXPECT_EQ(j["length"], Json(4096));
  EXPECT_EQ(serialize(j), R"({"lkey":1,"rkey":2,"va":"9007199254740993","length":4096})");
}

TEST(ControlReply, ACounterPastTwoTo53IsAString) {
  const Json j = to_json(std::vector<Counter>{{"rx_packets", kTwoTo53}, {"tx_packets", 3}});
  EXPECT_EQ(j["rx_packets"], Json("9007199254740992"));
  EXPECT_EQ(j["tx_packets"], Json(3));
}

}  // namespace
}  // namespace mr::agent
