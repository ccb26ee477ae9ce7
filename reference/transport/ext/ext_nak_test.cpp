// File: ext_nak_test.cpp
#include "reference/transport/ext/ext_nak.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

TEST(ExtNak, EverySyndromeFrom0x65To0x6BHasItsRowAndNoOtherDoes) {
  for (int s = 0; s < 256; ++s) {
    const bool extension = s >= 0x65 && s <= 0x6B;
    const ExtNakInfo* info = ext_nak_info(static_cast<uint8_t>(s));
    EXPECT_EQ(info != nullptr, extension) << s;
    if (info != nullptr) {
      EXPECT_EQ(info->syndrome, s);
    }
  }
}

TEST(ExtNak, TrimsAreCongestionAndOperationErrorsNeedNonFatal) {
  EXPECT_TRUE(ext_nak_info(0x65)->congestion_signal);
  EXPECT_TRUE(ext_nak_info(0x66)->congestion_signal);
  EXPECT_FALSE(ext_nak_info(0x67)->needs_nonfatal);
  EXPECT_EQ(ext_nak_info(0x67)->reaction, NakReaction::kRetransmitWhenInWindow);
  EXPECT_EQ(ext_nak_info(0x69)->status, FailedOperationStatus::kRemoteAccess);
  EXPECT_TRUE(ext_nak_info(0x69)->needs_nonfatal);
  EXPECT_EQ(ext_nak_info(0x6B)->name, "RESOURCE");
}

TEST(ExtNak, TheResponderMapsBaseOperationNaksOnlyWithNonFatal) {
  EXPECT_EQ(responder_nak(0x61, true), 0x68);
  EXPECT_EQ(responder_nak(0x62, true), 0x69);
  EXPECT_EQ(responder_nak(0x63, true), 0x6A);
  EXPECT_EQ(responder_nak(0x62, false), 0x62);  // the QP enters Error, as in base mode
  EXPECT_EQ(responder_nak(0x60, true), 0x60);
  EXPECT_EQ(responder_nak(0x65, true), 0x65);
}

}  // namespace
}  // namespace mr::transport::ext
