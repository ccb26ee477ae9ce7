#include "reference/wire/opcode.h"

#include <gtest/gtest.h>

namespace mr::wire {
namespace {

TEST(Opcode, NamesFollowScapy) {
  EXPECT_EQ(opcode_name(0x00), "RC_SEND_FIRST");
  EXPECT_EQ(opcode_name(0x11), "RC_ACKNOWLEDGE");
  EXPECT_EQ(opcode_name(0x24), "UC_SEND_ONLY");
  EXPECT_EQ(opcode_name(0x64), "UD_SEND_ONLY");
  EXPECT_EQ(opcode_name(0x81), "CNP");
  EXPECT_EQ(opcode_name(0x15), "0x15");
}

TEST(Opcode, ReverseLookupByNameRoundTrips) {
  for (int v = 0; v < 256; ++v) {
    if (!opcode_info(static_cast<uint8_t>(v))) continue;
    auto back = opcode_by_name(opcode_name(static_cast<uint8_t>(v)));
    ASSERT_TRUE(back) << v;
    EXPECT_EQ(*back, v);
  }
  EXPECT_FALSE(opcode_by_name("RC_NOT_AN_OPCODE"));
}

TEST(Opcode, HeaderCompositionFollowsTheOpcode) {
  EXPECT_EQ(opcode_info(0x0b)->header_bytes(), 20U);  // WRITE_ONLY_WITH_IMM: RETH + ImmDt
  EXPECT_EQ(opcode_info(0x12)->header_bytes(), 12U);  // ATOMIC_ACK: AETH + AtomicAckETH
  EXPECT_EQ(opcode_info(0x13)->header_bytes(), 28U);  // COMPARE_SWAP: AtomicETH
  EXPECT_EQ(opcode_info(0x0e)->header_bytes(), 0U);   // READ RESPONSE MIDDLE: no AETH
  EXPECT_EQ(opcode_info(0x64)->header_bytes(), 8U);   // UD SEND ONLY: DETH
  EXPECT_EQ(opcode_info(0x81)->header_bytes(), 16U);  // CNP padding
}

TEST(Opcode, RdRequestsCarryRdethAndDethResponsesOnlyRdeth) {
  EXPECT_TRUE(opcode_info(0x44)->has(kRdeth) && opcode_info(0x44)->has(kDeth));  // SEND_ONLY
  EXPECT_TRUE(opcode_info(0x51)->has(kRdeth));                                   // ACKNOWLEDGE
  EXPECT_FALSE(opcode_info(0x51)->has(kDeth));
  EXPECT_EQ(opcode_info(0x52)->header_bytes(), 16U);  // RDETH + AETH + AtomicAckETH
}

TEST(Opcode, UcHasOnlySendAndWrite) {
  EXPECT_TRUE(opcode_info(0x2b));
  EXPECT_FALSE(opcode_info(0x2c));  // no UC READ
  EXPECT_FALSE(opcode_info(0x31));  // no UC ACK
}

TEST(Opcode, FlagsDescribeMessagePosition) {
  EXPECT_TRUE(opcode_info(0x00)->is(kStart));
  EXPECT_FALSE(opcode_info(0x00)->is(kEnd));
  EXPECT_TRUE(opcode_info(0x04)->is(kStart) && opcode_info(0x04)->is(kEnd));
  EXPECT_FALSE(opcode_info(0x11)->is(kPayload));
}

}  // namespace
}  // namespace mr::wire
