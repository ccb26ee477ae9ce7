#include "reference/wire/opcode.h"

#include <gtest/gtest.h>

#include <string_view>
#include <utility>
#include <vector>

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

// Every named constant is the table's opcode of that name, so a typo in either shows.
TEST(Opcode, NamedConstantsAreTheTableValuesOfTheirNames) {
  const std::vector<std::pair<uint8_t, std::string_view>> named{
      {kOpRcSendFirst, "RC_SEND_FIRST"},
      {kOpRcSendMiddle, "RC_SEND_MIDDLE"},
      {kOpRcSendLast, "RC_SEND_LAST"},
      {kOpRcSendLastWithImmediate, "RC_SEND_LAST_WITH_IMMEDIATE"},
      {kOpRcSendOnly, "RC_SEND_ONLY"},
      {kOpRcSendOnlyWithImmediate, "RC_SEND_ONLY_WITH_IMMEDIATE"},
      {kOpRcRdmaWriteFirst, "RC_RDMA_WRITE_FIRST"},
      {kOpRcRdmaWriteMiddle, "RC_RDMA_WRITE_MIDDLE"},
      {kOpRcRdmaWriteLast, "RC_RDMA_WRITE_LAST"},
      {kOpRcRdmaWriteLastWithImmediate, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE"},
      {kOpRcRdmaWriteOnly, "RC_RDMA_WRITE_ONLY"},
      {kOpRcRdmaWriteOnlyWithImmediate, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"},
      {kOpRcRdmaReadRequest, "RC_RDMA_READ_REQUEST"},
      {kOpRcRdmaReadResponseFirst, "RC_RDMA_READ_RESPONSE_FIRST"},
      {kOpRcRdmaReadResponseMiddle, "RC_RDMA_READ_RESPONSE_MIDDLE"},
      {kOpRcRdmaReadResponseLast, "RC_RDMA_READ_RESPONSE_LAST"},
      {kOpRcRdmaReadResponseOnly, "RC_RDMA_READ_RESPONSE_ONLY"},
      {kOpRcAcknowledge, "RC_ACKNOWLEDGE"},
      {kOpRcAtomicAcknowledge, "RC_ATOMIC_ACKNOWLEDGE"},
      {kOpRcCompareSwap, "RC_COMPARE_SWAP"},
      {kOpRcFetchAdd, "RC_FETCH_ADD"},
      {kOpRcSendLastWithInvalidate, "RC_SEND_LAST_WITH_INVALIDATE"},
      {kOpRcSendOnlyWithInvalidate, "RC_SEND_ONLY_WITH_INVALIDATE"},
      {kOpRcFlush, "RC_FLUSH"},
      {kOpRcAtomicWrite, "RC_ATOMIC_WRITE"},
      {kOpUcSendFirst, "UC_SEND_FIRST"},
      {kOpUcSendMiddle, "UC_SEND_MIDDLE"},
      {kOpUcSendLast, "UC_SEND_LAST"},
      {kOpUcSendLastWithImmediate, "UC_SEND_LAST_WITH_IMMEDIATE"},
      {kOpUcSendOnly, "UC_SEND_ONLY"},
      {kOpUcSendOnlyWithImmediate, "UC_SEND_ONLY_WITH_IMMEDIATE"},
      {kOpUcRdmaWriteFirst, "UC_RDMA_WRITE_FIRST"},
      {kOpUcRdmaWriteMiddle, "UC_RDMA_WRITE_MIDDLE"},
      {kOpUcRdmaWriteLast, "UC_RDMA_WRITE_LAST"},
      {kOpUcRdmaWriteLastWithImmediate, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE"},
      {kOpUcRdmaWriteOnly, "UC_RDMA_WRITE_ONLY"},
      {kOpUcRdmaWriteOnlyWithImmediate, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"},
      {kOpRdSendFirst, "RD_SEND_FIRST"},
      {kOpRdSendMiddle, "RD_SEND_MIDDLE"},
      {kOpRdSendLast, "RD_SEND_LAST"},
      {kOpRdSendLastWithImmediate, "RD_SEND_LAST_WITH_IMMEDIATE"},
      {kOpRdSendOnly, "RD_SEND_ONLY"},
      {kOpRdSendOnlyWithImmediate, "RD_SEND_ONLY_WITH_IMMEDIATE"},
      {kOpRdRdmaWriteFirst, "RD_RDMA_WRITE_FIRST"},
      {kOpRdRdmaWriteMiddle, "RD_RDMA_WRITE_MIDDLE"},
      {kOpRdRdmaWriteLast, "RD_RDMA_WRITE_LAST"},
      {kOpRdRdmaWriteLastWithImmediate, "RD_RDMA_WRITE_LAST_WITH_IMMEDIATE"},
      {kOpRdRdmaWriteOnly, "RD_RDMA_WRITE_ONLY"},
      {kOpRdRdmaWriteOnlyWithImmediate, "RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE"},
      {kOpRdRdmaReadRequest, "RD_RDMA_READ_REQUEST"},
      {kOpRdRdmaReadResponseFirst, "RD_RDMA_READ_RESPONSE_FIRST"},
      {kOpRdRdmaReadResponseMiddle, "RD_RDMA_READ_RESPONSE_MIDDLE"},
      {kOpRdRdmaReadResponseLast, "RD_RDMA_READ_RESPONSE_LAST"},
      {kOpRdRdmaReadResponseOnly, "RD_RDMA_READ_RESPONSE_ONLY"},
      {kOpRdAcknowledge, "RD_ACKNOWLEDGE"},
      {kOpRdAtomicAcknowledge, "RD_ATOMIC_ACKNOWLEDGE"},
      {kOpRdCompareSwap, "RD_COMPARE_SWAP"},
      {kOpRdFetchAdd, "RD_FETCH_ADD"},
      {kOpUdSendOnly, "UD_SEND_ONLY"},
      {kOpUdSendOnlyWithImmediate, "UD_SEND_ONLY_WITH_IMMEDIATE"},
      {kOpCnp, "CNP"},
  };
  for (const auto& [value, name] : named) EXPECT_EQ(opcode_name(value), name) << int{value};
  size_t in_table = 0;  // and the table has no opcode without a constant
  for (int v = 0; v < 256; ++v) in_table += opcode_info(static_cast<uint8_t>(v)) ? 1 : 0;
  EXPECT_EQ(in_table, named.size());
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
