// File: trim_classifier_test.cpp
#include "reference/transport/ext/trim_classifier.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

constexpr TrimParameters kTrim{.enabled = true};

TEST(ClassifyTrim, AMarkedWholePacketWithAGoodIcrcIsRemarkedNotCut) {
  EXPECT_EQ(
      classify_trim({.dscp = 10, .ip_bytes_held = 1100, .ip_length_field = 1100, .icrc_ok = true},
                    kTrim),
      TrimClass::kRemarked);
}

TEST(ClassifyTrim, AMarkedPacketIsTrimmedWhateverItsLengthFieldsSay) {
  // The switch rewrote the lengths (the field says what is held) but the ICRC is gone.
  EXPECT_EQ(classify_trim({.dscp = 10, .ip_bytes_held = 128, .ip_length_field = 128}, kTrim),
            TrimClass::kTrimmed);
  // The switch left the original lengths.
  EXPECT_EQ(classify_trim({.dscp = 11, .ip_bytes_held = 128, .ip_length_field = 4180}, kTrim),
            TrimClass::kTrimmed);
}

TEST(ClassifyTrim, AnUnmarkedShortPacketIsTruncatedUnlessTreatedAsTrimmed) {
  const HeldPacket short_one{.dscp = 26, .ip_bytes_held = 500, .ip_length_field = 4180};
  EXPECT_EQ(classify_trim(short_one, kTrim), TrimClass::kTruncated);
  EXPECT_EQ(classify_trim(short_one, TrimParameters{.enabled = true, .truncated_as_trimmed = true}),
            TrimClass::kTrimmed);
  EXPECT_EQ(classify_trim({.dscp = 26, .ip_bytes_held = 4180, .ip_length_field = 4180}, kTrim),
            TrimClass::kOrdinary);
}

TEST(ClassifyTrim, WithoutTrimEveryPacketIsOrdinary) {
  EXPECT_EQ(classify_trim({.dscp = 10, .ip_bytes_held = 128, .ip_length_field = 4180}, {}),
            TrimClass::kOrdinary);
}

TEST(TrimmedRequestNak, NaksANewPsnByItsMarkAndDiscardsTheRest) {
  const HeldPacket trimmed{.dscp = 10, .ip_bytes_held = 128, .ip_length_field = 4180};
  const HeldPacket last_hop{.dscp = 11, .ip_bytes_held = 128, .ip_length_field = 4180};
  EXPECT_EQ(trimmed_request_nak(trimmed, kTrim, true, PsnArrival::kNew), 0x65);
  EXPECT_EQ(trimmed_request_nak(last_hop, kTrim, true, PsnArrival::kNew), 0x66);
  EXPECT_FALSE(trimmed_request_nak(trimmed, kTrim, false, PsnArrival::kNew));  // MXH cut
  EXPECT_FALSE(trimmed_request_nak(trimmed, kTrim, true, PsnArrival::kDuplicate));
  EXPECT_FALSE(trimmed_request_nak(trimmed, kTrim, true, PsnArrival::kBeyondWindow));
}

}  // namespace
}  // namespace mr::transport::ext
