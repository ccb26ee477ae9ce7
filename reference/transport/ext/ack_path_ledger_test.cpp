// File: ack_path_ledger_test.cpp
#include "reference/transport/ext/ack_path_ledger.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

constexpr uint64_t kUs = 1'000;

SackReport bitmap_at(uint32_t base, uint64_t bits) {
  return {.reference = base, .offset = 0, .bitmap = bits};
}

TEST(AckPathLedger, BlamesTheEvsOfAcksThatReportedTheRetransmittedPsn) {
  AckPathLedger ledger({});
  ledger.on_ack_sent(0xC001, 0, /*cumulative=*/0x0ff, bitmap_at(0x100, 0b101));  // 0x100, 0x102
  ledger.on_ack_sent(0xC002, 10 * kUs, 0x0ff, bitmap_at(0x100, 0b001));
  ledger.on_ack_sent(0xC003, 20 * kUs, 0x0ff, bitmap_at(0x100, 0b000));  // did not report it
  const auto blamed = ledger.on_duplicate_retransmission(0x100, 500 * kUs);
  EXPECT_EQ(blamed, (std::vector<uint16_t>{0xC001, 0xC002}));
}

TEST(AckPathLedger, AnAckYoungerThanTheGuardIsNotBlamed) {
  AckPathLedger ledger({});
  ledger.on_ack_sent(0xC001, 0, 0x0ff, bitmap_at(0x100, 1));
  EXPECT_TRUE(ledger.on_duplicate_retransmission(0x100, 99 * kUs).empty());
  EXPECT_EQ(ledger.on_duplicate_retransmission(0x100, 100 * kUs).size(), 1u);
}

TEST(AckPathLedger, ACumulativePsnReportsEverythingBeforeIt) {
  AckPathLedger ledger({});
  ledger.on_ack_sent(0xC009, 0, 0x200, bitmap_at(0x200, 0));
  EXPECT_EQ(ledger.on_duplicate_retransmission(0x1F0, 200 * kUs), (std::vector<uint16_t>{0xC009}));
}

TEST(AckPathLedger, EachAckIsBlamedOnceAndOnlyWithinTheWindow) {
  AckPathLedger ledger({});
  ledger.on_ack_sent(0xC001, 0, 0x0ff, bitmap_at(0x100, 0b11));
  EXPECT_EQ(ledger.on_duplicate_retransmission(0x100, 200 * kUs).size(), 1u);
  EXPECT_TRUE(ledger.on_duplicate_retransmission(0x101, 300 * kUs).empty());  // same ACK
  ledger.on_ack_sent(0xC002, 400 * kUs, 0x0ff, bitmap_at(0x100, 0b100));
  EXPECT_TRUE(ledger.on_duplicate_retransmission(0x102, 400 * kUs + 11'000 * kUs).empty());
}

TEST(AckPathLedger, KeepsAtMostItsBoundOfAcks) {
  AckPathLedger ledger({});
  for (uint64_t i = 0; i < 2 * AckPathLedger::kMaxAcks; ++i)
    ledger.on_ack_sent(static_cast<uint16_t>(0xC000 | (i & 0xff)), i, 0x0ff, bitmap_at(0x100, 1));
  EXPECT_EQ(ledger.on_duplicate_retransmission(0x100, 200 * kUs).size(), AckPathLedger::kMaxAcks);
}

}  // namespace
}  // namespace mr::transport::ext
