// File: read_reissue_test.cpp
#include "reference/transport/ext/read_reissue.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

constexpr uint64_t kUs = 1'000;
constexpr uint32_t kPmtu = 4096;

OutstandingRead read_of(uint32_t packets) {
  return OutstandingRead(
      {.first_psn = 0x300, .va = 0x10000, .dma_length = packets * kPmtu - 10, .msn = 9}, kPmtu,
      /*ooo_threshold=*/8, /*issued_ns=*/0);
}

TEST(OutstandingRead, CompletesWhenEveryResponseArrivedInAnyOrder) {
  OutstandingRead r = read_of(4);
  for (uint32_t psn : {0x303u, 0x301u, 0x300u}) EXPECT_TRUE(r.on_response(psn));
  EXPECT_FALSE(r.on_response(0x301));  // a repeat
  EXPECT_FALSE(r.on_response(0x304));  // not this READ's
  EXPECT_FALSE(r.complete());
  EXPECT_TRUE(r.on_response(0x302));
  EXPECT_TRUE(r.complete());
  EXPECT_FALSE(r.first_missing(1'000'000 * kUs, 500 * kUs));
}

TEST(OutstandingRead, AResponseIsMissingAfterNOooThresholdLaterOnes) {
  OutstandingRead r = read_of(12);
  r.on_response(0x300);
  for (uint32_t psn = 0x302; psn < 0x309; ++psn) r.on_response(psn);  // 7 after the hole
  EXPECT_FALSE(r.first_missing(10 * kUs, 500 * kUs));
  r.on_response(0x309);  // the 8th
  EXPECT_EQ(r.first_missing(10 * kUs, 500 * kUs), 0x301u);
}

TEST(OutstandingRead, AResponseIsMissingOnceTheRtoPassedSinceTheLastIssue) {
  OutstandingRead r = read_of(4);
  r.on_response(0x300);
  EXPECT_FALSE(r.first_missing(499 * kUs, 500 * kUs));
  EXPECT_EQ(r.first_missing(500 * kUs, 500 * kUs), 0x301u);
  r.reissue(0x301, 500 * kUs);
  EXPECT_FALSE(r.first_missing(999 * kUs, 500 * kUs));  // the RTO runs from the reissue
}

// MR-SA-15: PSN m, RETX, VA and DMA length moved by (m - first) x PMTU, the same MSN.
TEST(OutstandingRead, ReissuesTheRestFromTheFirstMissingPsn) {
  OutstandingRead r = read_of(4);  // 4 x 4096 - 10 bytes
  const ReadRequestFields again = r.reissue(0x302, 600 * kUs);
  EXPECT_EQ(again.first_psn, 0x302u);
  EXPECT_EQ(again.va, 0x10000u + 2 * kPmtu);
  EXPECT_EQ(again.dma_length, 2 * kPmtu - 10);
  EXPECT_EQ(again.mxh_offset, 2 * kPmtu);
  EXPECT_EQ(again.msn, 9u);
  EXPECT_TRUE(again.retx);
}

// Responses of the earlier issue still in flight after a reissue do not count as later
// arrivals: the threshold waits for the reissue's first response (the RTO does not).
TEST(OutstandingRead, AReissueWaitsForItsFirstResponseBeforeTheThresholdCountsAgain) {
  OutstandingRead r({.first_psn = 0x100, .dma_length = 40 * kPmtu}, kPmtu, 8, 0);
  for (uint32_t i = 2; i < 12; ++i) r.on_response(0x100 + i);
  ASSERT_EQ(r.first_missing(kUs, 500 * kUs), 0x100u);
  r.reissue(0x100, kUs);
  for (uint32_t i = 12; i < 30; ++i) r.on_response(0x100 + i);  // the first issue's tail
  EXPECT_FALSE(r.first_missing(2 * kUs, 500 * kUs));
  EXPECT_EQ(r.first_missing(501 * kUs, 500 * kUs), 0x100u);  // the RTO still applies
  r.on_response(0x100);  // the reissue's first response: counting resumes
  EXPECT_EQ(r.first_missing(3 * kUs, 500 * kUs), 0x101u);
}

TEST(OutstandingRead, TimeoutsCountUntilANewResponseArrives) {
  OutstandingRead r = read_of(4);
  r.on_timeout();
  r.on_timeout();
  EXPECT_EQ(r.timeouts(), 2u);
  r.on_response(0x300);
  EXPECT_EQ(r.timeouts(), 0u);
  r.on_timeout();
  r.on_response(0x300);  // a repeat is not progress
  EXPECT_EQ(r.timeouts(), 1u);
}

TEST(OutstandingRead, AZeroLengthReadHasOneResponse) {
  OutstandingRead r({.first_psn = 0xffffff, .dma_length = 0}, kPmtu, 8, 0);
  EXPECT_FALSE(r.complete());
  EXPECT_TRUE(r.on_response(0xffffff));
  EXPECT_TRUE(r.complete());
}

}  // namespace
}  // namespace mr::transport::ext
