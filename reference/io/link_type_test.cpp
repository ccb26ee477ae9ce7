#include "reference/io/link_type.h"

#include <gtest/gtest.h>

namespace mr::io {
namespace {

TEST(LinkType, EthernetAndLinuxCookedCapturesAreRead) {
  EXPECT_EQ(framing_of(1), wire::Framing::kEthernet);
  EXPECT_EQ(framing_of(113), wire::Framing::kLinuxSll);
  EXPECT_EQ(framing_of(276), wire::Framing::kLinuxSll2);
  EXPECT_EQ(framing_of(101), std::nullopt);
  EXPECT_EQ(framing_of(0), std::nullopt);
}

TEST(LinkType, NamesAreTcpdumpOrgs) {
  EXPECT_EQ(link_type_name(101), "LINKTYPE_RAW");
  EXPECT_EQ(link_type_name(276), "LINKTYPE_LINUX_SLL2");
  EXPECT_EQ(link_type_name(147), "LINKTYPE_USER0");
  EXPECT_EQ(link_type_name(162), "LINKTYPE_USER15");
  EXPECT_EQ(link_type_name(163), "an unassigned link type");
}

TEST(LinkType, AFrameOfAnUnreadLinkTypeIsAnErrorNamingFileNumberAndName) {
  CapturedFrame frame;
  frame.link_type = 101;
  frame.interface = 2;
  frame.file_offset = 96;
  const auto f = framing_of("x.pcapng", frame);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().to_string(),
            "x.pcapng: byte 96: link type 101 (LINKTYPE_RAW) of interface 2 is not one metaroce "
            "reads: it reads Ethernet (1) and Linux cooked captures (113 LINKTYPE_LINUX_SLL, 276 "
            "LINKTYPE_LINUX_SLL2)");
  frame.link_type = 113;
  const auto sll = framing_of("x.pcapng", frame);
  ASSERT_TRUE(sll);
  EXPECT_EQ(*sll, wire::Framing::kLinuxSll);
}

}  // namespace
}  // namespace mr::io
