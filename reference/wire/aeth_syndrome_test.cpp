#include "reference/wire/aeth_syndrome.h"

#include <gtest/gtest.h>

namespace mr::wire {
namespace {

static_assert(syndrome_type(0x1f) == SyndromeType::kAck);
static_assert(syndrome_type(0x3f) == SyndromeType::kRnrNak);
static_assert(syndrome_type(0x41) == SyndromeType::kReserved);
static_assert(syndrome_type(kNakInvalidRdRequest) == SyndromeType::kNak);
static_assert(kSyndromeAck == 0x1f && rnr_nak(0) == 0x20);

TEST(AethSyndrome, TypeIsBitsSixAndFive) {
  EXPECT_EQ(syndrome_type(0x00), SyndromeType::kAck);
  EXPECT_EQ(syndrome_type(0x20), SyndromeType::kRnrNak);
  EXPECT_EQ(syndrome_type(0x5f), SyndromeType::kReserved);
  EXPECT_EQ(syndrome_type(0x60), SyndromeType::kNak);
  EXPECT_EQ(syndrome_type(0x80), SyndromeType::kAck);  // the reserved bit 7 is not looked at
}

TEST(AethSyndrome, ValueIsTheLowFiveBits) {
  EXPECT_EQ(syndrome_value(0x1f), 0x1f);
  EXPECT_EQ(syndrome_value(0x2a), 0x0a);
  EXPECT_EQ(syndrome_value(kNakRemoteAccessError), 2);
  EXPECT_EQ(syndrome_value(0xff), 0x1f);
}

TEST(AethSyndrome, ClassTestsCoverTheirRangesExactly) {
  for (int v = 0; v < 256; ++v) {
    const auto s = static_cast<uint8_t>(v);
    EXPECT_EQ(is_ack(s), v <= 0x1f) << v;
    EXPECT_EQ(is_rnr_nak(s), v >= 0x20 && v <= 0x3f) << v;
    EXPECT_EQ(is_nak(s), v >= 0x60 && v <= 0x7f) << v;
  }
}

TEST(AethSyndrome, ReservedBitSevenMakesNoClass) {
  EXPECT_FALSE(is_ack(0x80));
  EXPECT_FALSE(is_rnr_nak(0xa0));
  EXPECT_FALSE(is_nak(0xe0));
}

TEST(AethSyndrome, NakCodesAreIbtaValues) {
  EXPECT_EQ(kNakPsnSequenceError, 0x60);
  EXPECT_EQ(kNakInvalidRequest, 0x61);
  EXPECT_EQ(kNakRemoteAccessError, 0x62);
  EXPECT_EQ(kNakRemoteOperationalError, 0x63);
  EXPECT_EQ(kNakInvalidRdRequest, 0x64);
}

TEST(AethSyndrome, BuildersKeepTheValueInFiveBits) {
  EXPECT_EQ(ack(3), 0x03);
  EXPECT_EQ(ack(0x3f), 0x1f);
  EXPECT_EQ(rnr_nak(14), 0x2e);
  EXPECT_EQ(rnr_nak(0xff), 0x3f);
  EXPECT_TRUE(is_rnr_nak(rnr_nak(31)));
}

TEST(AethSyndrome, NamesAreTheScriptNames) {
  EXPECT_EQ(syndrome_name(0x00), "ACK");
  EXPECT_EQ(syndrome_name(kSyndromeAck), "ACK");
  EXPECT_EQ(syndrome_name(rnr_nak(7)), "RNR_NAK");
  EXPECT_EQ(syndrome_name(kNakPsnSequenceError), "NAK_PSN_SEQUENCE_ERROR");
  EXPECT_EQ(syndrome_name(kNakInvalidRequest), "NAK_INVALID_REQUEST");
  EXPECT_EQ(syndrome_name(kNakRemoteAccessError), "NAK_REMOTE_ACCESS_ERROR");
  EXPECT_EQ(syndrome_name(kNakRemoteOperationalError), "NAK_REMOTE_OPERATIONAL_ERROR");
  EXPECT_EQ(syndrome_name(kNakInvalidRdRequest), "NAK_INVALID_RD_REQUEST");
}

TEST(AethSyndrome, ReservedValuesAreNamedInHex) {
  EXPECT_EQ(syndrome_name(0x41), "0x41");
  EXPECT_EQ(syndrome_name(0x65), "0x65");
  EXPECT_EQ(syndrome_name(0x80), "0x80");
}

TEST(AethSyndrome, ByNameGivesTheValueAPacketCarries) {
  EXPECT_EQ(syndrome_by_name("ACK"), kSyndromeAck);
  EXPECT_EQ(syndrome_by_name("RNR_NAK"), rnr_nak(0));
  EXPECT_EQ(syndrome_by_name("NAK_REMOTE_ACCESS_ERROR"), kNakRemoteAccessError);
  EXPECT_EQ(syndrome_by_name("NAK_INVALID_RD_REQUEST"), kNakInvalidRdRequest);
  EXPECT_FALSE(syndrome_by_name("NAK"));
  EXPECT_FALSE(syndrome_by_name("RC_ACKNOWLEDGE"));
}

TEST(AethSyndrome, PartIINakNamesAreGivenInExtPacketsOnly) {
  EXPECT_EQ(ext_syndrome_name(kNakTrimmed), "NAK_TRIMMED");
  EXPECT_EQ(ext_syndrome_name(kNakResource), "NAK_RESOURCE");
  EXPECT_EQ(ext_syndrome_name(kNakPsnSequenceError), "NAK_PSN_SEQUENCE_ERROR");
  EXPECT_EQ(ext_syndrome_name(0x6c), "0x6c");
  EXPECT_EQ(syndrome_name(kNakTrimmedLastHop), "0x66");  // reserved in base mode
  for (uint8_t s = kNakTrimmed; s <= kNakResource; ++s) {
    EXPECT_EQ(syndrome_by_name(ext_syndrome_name(s)), s);
  }
}

TEST(AethSyndrome, NameAndByNameRoundTripForTheNakCodes) {
  for (uint8_t s = kNakPsnSequenceError; s <= kNakInvalidRdRequest; ++s) {
    EXPECT_EQ(syndrome_by_name(syndrome_name(s)), s);
  }
}

}  // namespace
}  // namespace mr::wire
