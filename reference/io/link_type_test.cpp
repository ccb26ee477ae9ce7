#include "reference/io/link_type.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

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

// Little-endian capture files with no frames: a pcap file header, or a pcapng section header
// and one interface description.
void put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::string write_file(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
  return path;
}

std::string empty_pcap(const std::string& name, uint32_t link_type) {
  std::vector<uint8_t> b;
  put(b, 0xa1b2c3d4, 4);  // magic, microseconds
  put(b, 2, 2);           // version 2.4
  put(b, 4, 2);
  put(b, 0, 8);          // thiszone, sigfigs
  put(b, 65535, 4);      // snaplen
  put(b, link_type, 4);  // byte 20
  return write_file(name, b);
}

std::string empty_pcapng(const std::string& name, uint32_t link_type) {
  std::vector<uint8_t> b;
  put(b, 0x0a0d0d0a, 4);  // section header block, 28 bytes
  put(b, 28, 4);
  put(b, 0x1a2b3c4d, 4);
  put(b, 1, 2);  // version 1.0
  put(b, 0, 2);
  put(b, ~uint64_t{0}, 8);  // section length unknown
  put(b, 28, 4);
  put(b, 1, 4);  // interface description block, 20 bytes, at byte 28
  put(b, 20, 4);
  put(b, link_type, 2);  // byte 36
  put(b, 0, 2);
  put(b, 65535, 4);
  put(b, 20, 4);
  return write_file(name, b);
}

TEST(OpenForDecoding, AnEmptyPcapOfAnUnreadLinkTypeIsRefusedAtItsFileHeader) {
  const std::string path = empty_pcap("raw.pcap", 101);
  auto r = open_for_decoding(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cause, CaptureError::Cause::kLinkType);
  EXPECT_EQ(r.error().to_string(),
            path +
                ": byte 20: link type 101 (LINKTYPE_RAW) is not one metaroce reads: it reads "
                "Ethernet (1) and Linux cooked captures (113 LINKTYPE_LINUX_SLL, 276 "
                "LINKTYPE_LINUX_SLL2)");
  // Without the check the reader opens it: the refusal is the decoder's, not the format's.
  EXPECT_TRUE(CaptureReader::open(path));
}

TEST(OpenForDecoding, AnEmptyPcapngIsRefusedAtTheInterfaceThatDeclaresAnUnreadLinkType) {
  const std::string path = empty_pcapng("null.pcapng", 0);
  auto r = open_for_decoding(path);
  ASSERT_TRUE(r) << r.error().to_string();
  auto f = r->next();
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().cause, CaptureError::Cause::kLinkType);
  EXPECT_EQ(f.error().offset, 36u);
  EXPECT_NE(f.error().reason.find("link type 0 (LINKTYPE_NULL) of interface 0 is not one"),
            std::string::npos)
      << f.error().reason;
}

TEST(OpenForDecoding, EmptyEthernetAndLinuxCookedCapturesAreReadToTheirEnd) {
  for (const uint32_t link_type : {1u, 113u, 276u}) {
    SCOPED_TRACE(link_type);
    for (const std::string& path :
         {empty_pcap("ok.pcap", link_type), empty_pcapng("ok.pcapng", link_type)}) {
      auto r = open_for_decoding(path);
      ASSERT_TRUE(r) << r.error().to_string();
      auto f = r->next();
      ASSERT_TRUE(f) << f.error().to_string();
      EXPECT_FALSE(*f);
    }
  }
}

}  // namespace
}  // namespace mr::io
