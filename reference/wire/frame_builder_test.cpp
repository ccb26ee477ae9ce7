#include "reference/wire/frame_builder.h"

#include <gtest/gtest.h>

#include <array>
#include <span>
#include <vector>

#include "reference/wire/byte_writer.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/test_frames.h"

namespace mr::wire {
namespace {

RocePacket decoded(const std::vector<uint8_t>& frame) {
  auto d = decode_frame(frame);
  EXPECT_TRUE(d);
  return std::get<DecodedRoce>(*d).packet;
}

TEST(FrameBuilder, RebuildsKnownFramesByteForByte) {
  for (const auto& frame :
       {testing::rc_ack_ipv4(), testing::rc_send_only_ipv6(), testing::cx4_cnp()}) {
    RocePacket p = decoded(frame);
    p.icrc = 0;
    if (auto* v4 = std::get_if<Ipv4>(&p.ip)) {
      v4->len = 0;
      v4->chksum = 0;
    }
    p.udp.len = 0;
    EXPECT_EQ(build_frame(p), frame);
  }
}

TEST(FrameBuilder, FillsPaddingAndIcrcForANewPacket) {
  const uint8_t hello[] = {'h', 'e', 'l', 'l', 'o'};
  RocePacket p;
  Ipv4 ip;
  ip.src = *Ipv4Address::parse("198.18.0.1");
  ip.dst = *Ipv4Address::parse("198.18.0.2");
  p.ip = ip;
  p.bth.opcode = kOpRcSendOnly;
  p.bth.dqpn = 0x11;
  p.payload = hello;
  const auto frame = build_frame(p, {.fill_padding = true});
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d) << d.error().to_string();
  const auto& r = std::get<DecodedRoce>(*d);
  EXPECT_EQ(r.packet.bth.padcount, 3);
  EXPECT_EQ(r.packet.payload.size(), 5U);
  EXPECT_TRUE(r.icrc_ok());
  EXPECT_EQ(std::get<Ipv4>(r.packet.ip).chksum, std::get<Ipv4>(r.packet.ip).compute_checksum());
}

TEST(FrameBuilder, KeepsAGivenWrongIcrcWhenAskedTo) {
  RocePacket p = decoded(testing::rc_ack_ipv4());
  p.icrc = 0xdeadbeef;
  const auto frame = build_frame(p, {.fill_icrc = false});
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  EXPECT_FALSE(std::get<DecodedRoce>(*d).icrc_ok());
  EXPECT_EQ(std::get<DecodedRoce>(*d).packet.icrc, 0xdeadbeefU);
}

// The expected values come from an independent RFC 768 computation (Python) over the same
// frames; the ICRC masks the UDP checksum, so it stays the one of the original frame.
TEST(FrameBuilder, FillsTheUdpChecksumOverThePseudoHeaderWhenAskedTo) {
  struct Case {
    std::vector<uint8_t> frame;
    size_t udp_offset;
    uint16_t checksum;
  };
  for (const auto& c :
       {Case{testing::rc_ack_ipv4(), 34, 0xc6da}, Case{testing::rc_send_only_ipv6(), 54, 0x7f3b}}) {
    const RocePacket p = decoded(c.frame);
    const auto frame = build_frame(p, {.fill_udp_checksum = true});
    ASSERT_EQ(frame.size(), c.frame.size());
    EXPECT_EQ(frame[c.udp_offset + 6], c.checksum >> 8);
    EXPECT_EQ(frame[c.udp_offset + 7], c.checksum & 0xff);
    const auto d = decode_frame(frame);
    ASSERT_TRUE(d);
    EXPECT_TRUE(std::get<DecodedRoce>(*d).icrc_ok());
    auto unchanged = frame;
    unchanged[c.udp_offset + 6] = unchanged[c.udp_offset + 7] = 0;
    EXPECT_EQ(unchanged, c.frame);
  }
}

TEST(FrameBuilder, WritesTheGivenUdpChecksumByDefault) {
  RocePacket p = decoded(testing::rc_ack_ipv4());
  p.udp.chksum = 0xbeef;
  EXPECT_EQ(decoded(build_frame(p)).udp.chksum, 0xbeef);
}

RocePacket write_only_ipv4() {
  RocePacket p;
  Ipv4 ip;
  ip.src = *Ipv4Address::parse("198.18.0.1");
  ip.dst = *Ipv4Address::parse("198.18.0.2");
  p.ip = ip;
  p.bth.opcode = kOpRcRdmaWriteOnly;
  p.bth.dqpn = 0x12;
  p.reth = Reth{0x1000, 0x77, 11};
  return p;
}

TEST(FrameBuilder, PayloadInPiecesBuildsTheFrameOfThePayloadInOnePiece) {
  const std::vector<uint8_t> whole = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const std::span<const uint8_t> all(whole);
  const std::array<std::span<const uint8_t>, 3> pieces = {all.first(2), all.subspan(2, 5),
                                                          all.subspan(7)};
  RocePacket p = write_only_ipv4();
  p.payload = all;
  const std::vector<uint8_t> expected = build_frame(p, {.fill_padding = true});
  p.payload = {};  // not read when pieces are given
  std::vector<uint8_t> frame;
  build_frame_into(p, {.fill_padding = true}, frame, pieces);
  EXPECT_EQ(frame, expected);
  const auto d = decode_frame(frame);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_TRUE(std::get<DecodedRoce>(*d).icrc_ok());
  EXPECT_EQ(std::get<DecodedRoce>(*d).packet.bth.padcount, 1);
}

TEST(FrameBuilder, IntoAReusedBufferWritesTheSameFrameInItsStorage) {
  const std::vector<uint8_t> payload(300, 0xab);
  RocePacket p = write_only_ipv4();
  p.payload = payload;
  const std::vector<uint8_t> expected = build_frame(p);
  std::vector<uint8_t> buffer(4096, 0xee);  // a larger frame's buffer, given back
  const uint8_t* storage = buffer.data();
  build_frame_into(p, {}, buffer);
  EXPECT_EQ(buffer, expected);
  EXPECT_EQ(buffer.data(), storage);  // no allocation: the capacity was enough
}

TEST(FrameBuilder, LeavesThePacketItBuildsFromUnchanged) {
  const std::vector<uint8_t> payload(5, 1);
  RocePacket p = write_only_ipv4();
  p.payload = payload;
  std::vector<uint8_t> frame;
  build_frame_into(p, {.fill_padding = true}, frame);
  EXPECT_EQ(p.bth.padcount, 0);
  EXPECT_EQ(p.udp.len, 0);
  EXPECT_EQ(std::get<Ipv4>(p.ip).len, 0);
  EXPECT_EQ(std::get<Ipv4>(p.ip).chksum, 0);
}

// RFC 1071's worked header (the one every checksum tutorial uses): 0xb861.
TEST(Ipv4Checksum, MatchesAKnownHeader) {
  Ipv4 ip;
  ip.tos = 0;
  ip.len = 0x73;
  ip.id = 0;
  ip.flags = 2;
  ip.ttl = 0x40;
  ip.proto = 0x11;
  ip.src = *Ipv4Address::parse("192.168.0.1");
  ip.dst = *Ipv4Address::parse("192.168.0.199");
  ip.chksum = 0x1234;  // not summed: taken as zero
  EXPECT_EQ(ip.compute_checksum(), 0xb861);
  // With options: the header as written, its checksum in place, sums to all ones.
  ip.ihl = 6;
  ip.options = {0x94, 0x04, 0x00, 0x00};  // Router Alert
  ip.chksum = ip.compute_checksum();
  std::vector<uint8_t> bytes;
  ByteWriter w(bytes);
  ip.write(w);
  ASSERT_EQ(bytes.size(), 24U);
  uint32_t sum = 0;
  for (size_t i = 0; i < bytes.size(); i += 2) sum += uint32_t{bytes[i]} << 8 | bytes[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  EXPECT_EQ(sum, 0xffffU);
}

}  // namespace
}  // namespace mr::wire
