// File: ordered_completion_test.cpp
#include "reference/transport/ext/ordered_completion.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

constexpr uint32_t kPmtu = 4096;

TEST(PlacementError, AcceptsEveryPositionOfAWellFormedMessage) {
  const uint64_t len = 2 * kPmtu + 100;
  EXPECT_FALSE(placement_error(PacketPosition::kFirst, 0, kPmtu, len, kPmtu));
  EXPECT_FALSE(placement_error(PacketPosition::kMiddle, kPmtu, kPmtu, len, kPmtu));
  EXPECT_FALSE(placement_error(PacketPosition::kLast, 2 * kPmtu, 100, len, kPmtu));
  EXPECT_FALSE(placement_error(PacketPosition::kOnly, 0, 100, 100, kPmtu));
  EXPECT_FALSE(placement_error(PacketPosition::kOnly, 0, 0, 0, kPmtu));  // a zero-length WRITE
}

TEST(PlacementError, NamesEachBrokenRule) {
  const uint64_t len = 3 * kPmtu;
  EXPECT_NE(placement_error(PacketPosition::kMiddle, 100, kPmtu, len, kPmtu)->find("multiple"),
            std::string::npos);
  EXPECT_NE(placement_error(PacketPosition::kFirst, kPmtu, kPmtu, len, kPmtu)->find("FIRST"),
            std::string::npos);
  EXPECT_NE(placement_error(PacketPosition::kMiddle, kPmtu, 100, len, kPmtu)->find("not one PMTU"),
            std::string::npos);
  EXPECT_NE(placement_error(PacketPosition::kLast, 2 * kPmtu, 100, len, kPmtu)->find("not at"),
            std::string::npos);
  EXPECT_NE(placement_error(PacketPosition::kMiddle, 3 * kPmtu, kPmtu, len, kPmtu)->find("beyond"),
            std::string::npos);
}

TEST(RqsnBinding, TheKthReceiveWqeServesRqsnKWhateverOrderPacketsArriveIn) {
  RqsnBinding rq(/*shared=*/false);
  rq.post(100);
  rq.post(200);
  rq.post(300);
  EXPECT_EQ(rq.bind(2), 200u);  // RQSN 2's packet first
  EXPECT_EQ(rq.bind(1), 100u);
  EXPECT_EQ(rq.bind(2), 200u);  // another packet of the same message
  EXPECT_EQ(rq.bind(3), 300u);
  EXPECT_FALSE(rq.bind(4));  // no WQE: RNR NAK for that packet only
  rq.post(400);
  EXPECT_EQ(rq.bind(4), 400u);  // after the RNR delay the retransmission finds one
}

TEST(RqsnBinding, AnSrqBindsItsNextWqeToEachNewRqsn) {
  RqsnBinding srq(/*shared=*/true);
  srq.post(7);
  srq.post(8);
  EXPECT_EQ(srq.bind(5), 7u);
  EXPECT_EQ(srq.bind(2), 8u);
  EXPECT_EQ(srq.bind(5), 7u);
  EXPECT_FALSE(srq.bind(9));
  srq.consume(5);
  srq.post(9);
  EXPECT_EQ(srq.bind(9), 9u);
}

TEST(MessageCompletions, CompleteInMsnOrderOnceTheCumulativePsnPassesTheirLastPsn) {
  MessageCompletions done;
  done.on_last_packet(2, 20);  // later messages' last packets arrive first
  done.on_last_packet(3, 25);
  EXPECT_TRUE(done.advance(19).empty());  // message 1's last PSN unknown: nothing completes
  done.on_last_packet(1, 10);
  EXPECT_EQ(done.advance(15), (std::vector<uint32_t>{1}));
  EXPECT_EQ(done.advance(25), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(done.msn(), 3u);
  done.on_last_packet(2, 20);  // a duplicate LAST: no second completion
  EXPECT_TRUE(done.advance(30).empty());
  EXPECT_EQ(done.msn(), 3u);
}

TEST(MessageCompletions, AMessageWithAMissingPacketNeverCompletes) {
  MessageCompletions done;
  done.on_last_packet(1, 0xfffffe);  // across the PSN wrap
  done.on_last_packet(2, 0x000004);
  EXPECT_TRUE(done.advance(0xfffffd).empty());  // a hole before the LAST
  EXPECT_EQ(done.advance(0x000002), (std::vector<uint32_t>{1}));
  EXPECT_EQ(done.advance(0x000004), (std::vector<uint32_t>{2}));
}

}  // namespace
}  // namespace mr::transport::ext
