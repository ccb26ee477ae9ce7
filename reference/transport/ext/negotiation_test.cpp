// File: negotiation_test.cpp
#include "reference/transport/ext/negotiation.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

using wire::Mxcap;

Mxcap cap(uint8_t features, uint8_t features2 = 0, uint8_t mpr = 8) {
  Mxcap m;
  m.features = features;
  m.features2 = features2;
  m.mpr = mpr;
  return m;
}

constexpr uint8_t kCore = wire::kMxcapSack | wire::kMxcapOoo;

TEST(Negotiation, ExtNeedsBothBlocksWithSackAndOoo) {
  EXPECT_TRUE(negotiate(cap(kCore), cap(kCore), false).value());
  EXPECT_FALSE(negotiate(cap(kCore), std::nullopt, false).value());
  EXPECT_FALSE(negotiate(std::nullopt, cap(kCore), false).value());
  EXPECT_FALSE(negotiate(cap(kCore), cap(wire::kMxcapSack), false).value());
  Mxcap other_version = cap(kCore);
  other_version.version = 2;
  EXPECT_FALSE(negotiate(cap(kCore), other_version, false).value());
  Mxcap bad_magic = cap(kCore);
  bad_magic.magic.bytes[3] = '2';
  EXPECT_FALSE(negotiate(cap(kCore), bad_magic, false).value());
}

TEST(Negotiation, FeaturesAreTheAndOfBothBlocks) {
  const auto a = negotiate(cap(kCore | wire::kMxcapMultipath | wire::kMxcapTrim),
                           cap(kCore | wire::kMxcapTrim | wire::kMxcapCc, 0, 4), false);
  ASSERT_TRUE(a && *a);
  EXPECT_EQ((*a)->features, kCore | wire::kMxcapTrim);
  EXPECT_EQ((*a)->peer_mpr, 4);
}

TEST(Negotiation, PathProbeAndAdaptiveNeedMultipath) {
  const uint8_t want = kCore | wire::kMxcapPathProbe | wire::kMxcapAdaptive;
  auto a = negotiate(cap(want), cap(want), false);
  EXPECT_EQ((*a)->features, kCore);
  a = negotiate(cap(want | wire::kMxcapMultipath), cap(want | wire::kMxcapMultipath), false);
  EXPECT_TRUE((*a)->has(wire::kMxcapAdaptive));
}

TEST(Negotiation, NonFatalNeedsResyncAndReservedBitsAreIgnored) {
  auto a = negotiate(cap(kCore, wire::kMxcapNonFatal | 0x80),
                     cap(kCore, wire::kMxcapNonFatal | 0x80), false);
  EXPECT_EQ((*a)->features2, 0);
  const uint8_t both = wire::kMxcapNonFatal | wire::kMxcapResync;
  a = negotiate(cap(kCore, both), cap(kCore, both), false);
  EXPECT_EQ((*a)->features2, both);
}

TEST(Negotiation, SecureWithoutSecurityAssociationsFailsTheTransition) {
  const auto a = negotiate(cap(kCore, wire::kMxcapSecure), cap(kCore, wire::kMxcapSecure), false);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().find("MR-SE-01"), std::string::npos);
  EXPECT_TRUE(negotiate(cap(kCore, wire::kMxcapSecure), cap(kCore, wire::kMxcapSecure), true));
}

TEST(QpExtension, TheModeIsFixedUntilReset) {
  QpExtension q;
  EXPECT_EQ(q.mode(), ExtMode::kBasePending);
  EXPECT_EQ(q.init_to_rtr(cap(kCore), cap(kCore), false).value(), ExtMode::kExt);
  // A later transition with other blocks changes nothing (MR-EX-10).
  EXPECT_EQ(q.init_to_rtr(cap(kCore), std::nullopt, false).value(), ExtMode::kExt);
  q.reset();
  EXPECT_EQ(q.init_to_rtr(cap(kCore), std::nullopt, false).value(), ExtMode::kBase);
  EXPECT_FALSE(q.agreement().has(wire::kMxcapSack));
}

}  // namespace
}  // namespace mr::transport::ext
