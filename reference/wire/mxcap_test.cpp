#include "reference/wire/mxcap.h"

#include <gtest/gtest.h>

#include <vector>

namespace mr::wire {
namespace {

// Spec section 18's layout, byte for byte.
TEST(Mxcap, TheDefaultBlockIsTheMinimalExtBlockOfSection18) {
  const std::vector<uint8_t> expected{'M', 'R', 'X', '1', 1, 0x03, 0, 8, 1, 0, 0, 1, 0, 0, 0, 0};
  EXPECT_EQ(Mxcap{}.bytes(), expected);
  EXPECT_TRUE(Mxcap{}.enables_ext());
}

TEST(Mxcap, ParsesTheFirstSixteenBytesOfLongerPrivateData) {
  Mxcap m;
  m.features = kMxcapSack | kMxcapOoo | kMxcapMultipath | kMxcapCredit;
  m.ev_mode = 1;
  m.planes = 8;
  m.features2 = kMxcapNonFatal | kMxcapResync | kMxcapSecure;
  m.ev_count = 4096;
  auto bytes = m.bytes();
  bytes.insert(bytes.end(), 40, 0xaa);  // the rest of the CM private data
  auto parsed = Mxcap::parse(bytes);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(*parsed, m);
}

TEST(Mxcap, AShortBlockIsAnErrorNamingMxcap) {
  const std::vector<uint8_t> bytes{'M', 'R', 'X', '1', 1, 3};
  auto parsed = Mxcap::parse(bytes);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().header, "MXCAP");
  EXPECT_NE(parsed.error().reason.find("16"), std::string::npos) << parsed.error().reason;
}

TEST(Mxcap, ExtNeedsTheMagicVersionOneAndTheSackAndOooBits) {
  Mxcap bad_magic;
  bad_magic.magic.bytes[3] = '2';
  EXPECT_FALSE(bad_magic.enables_ext());
  Mxcap version2;
  version2.version = 2;
  EXPECT_FALSE(version2.enables_ext());
  Mxcap no_ooo;
  no_ooo.features = kMxcapSack | kMxcapMultipath;
  EXPECT_FALSE(no_ooo.enables_ext());
  Mxcap reserved_set;
  reserved_set.features2 = kMxcapFeatures2Reserved;  // reserved bits are ignored (MR-EX-09)
  EXPECT_TRUE(reserved_set.enables_ext());
}

}  // namespace
}  // namespace mr::wire
