// File: trimmed_frame_test.cpp
#include "reference/wire/trimmed_frame.h"

#include <gtest/gtest.h>

#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/header_sizes.h"

namespace mr::wire {
namespace {

constexpr size_t kEtherBytes = 14;

// An Ext RDMA WRITE MIDDLE of 4,096 bytes: BTH, MXH, RETH (table 19.1), DSCP 10.
RocePacket ext_write(bool ipv6) {
  RocePacket p;
  if (ipv6) {
    Ipv6 ip;
    ip.src = *Ipv6Address::parse("2001:2::1");
    ip.dst = *Ipv6Address::parse("2001:2::2");
    ip.tc = 10 << 2;
    p.ip = ip;
    p.eth.type = kEtherTypeIpv6;
  } else {
    Ipv4 ip;
    ip.src = *Ipv4Address::parse("198.18.0.1");
    ip.dst = *Ipv4Address::parse("198.18.0.2");
    ip.tos = 10 << 2;
    p.ip = ip;
  }
  p.udp.sport = 0xc003;
  p.udp.dport = kRoceV2Port;
  p.bth.opcode = kOpRcRdmaWriteMiddle;
  p.bth.version = kExtVersion;
  p.bth.dqpn = 0x12;
  p.bth.psn = 0x123456;
  auto& mxh = p.mxh.emplace();
  mxh.plane = 3;
  mxh.ev = 0xc003;
  mxh.offset = 8192;
  p.reth.emplace().dlen = 3 * 4096;
  static const std::vector<uint8_t> payload(4096, 0xab);
  p.payload = payload;
  return p;
}

// The frame cut to `ip_bytes` of IP packet, its length fields rewritten or left as they were.
std::vector<uint8_t> cut(std::vector<uint8_t> frame, size_t ip_bytes, bool ipv6,
                         bool rewrite_lengths) {
  frame.resize(kEtherBytes + ip_bytes);
  if (rewrite_lengths) {
    const size_t ip_header = ipv6 ? 40 : 20;
    const size_t ip_len = ipv6 ? ip_bytes - 40 : ip_bytes;
    const size_t at = kEtherBytes + (ipv6 ? 4 : 2);
    frame[at] = static_cast<uint8_t>(ip_len >> 8);
    frame[at + 1] = static_cast<uint8_t>(ip_len);
    const size_t udp_len = ip_bytes - ip_header;
    frame[kEtherBytes + ip_header + 4] = static_cast<uint8_t>(udp_len >> 8);
    frame[kEtherBytes + ip_header + 5] = static_cast<uint8_t>(udp_len);
  }
  return frame;
}

TEST(TrimmedFrame, ReadsBthMxhAndRethOfAFrameCutToBTrimMinWhateverItsLengthsSay) {
  for (bool ipv6 : {false, true}) {
    for (bool rewrite : {false, true}) {
      SCOPED_TRACE(testing::Message() << "ipv6 " << ipv6 << ", lengths rewritten " << rewrite);
      const std::vector<uint8_t> whole = build_frame(ext_write(ipv6));
      const size_t ip_bytes = ipv6 ? 40 + 8 + 12 + 20 + 16 : 128;  // MR-TR-09, B_TRIM_MIN
      const std::vector<uint8_t> frame = cut(whole, ip_bytes, ipv6, rewrite);
      EXPECT_FALSE(decode_frame(frame) && std::get<DecodedRoce>(*decode_frame(frame)).icrc_ok());
      const auto t = read_trimmed_frame(frame);
      ASSERT_TRUE(t);
      EXPECT_EQ(t->packet.bth.psn, 0x123456u);
      ASSERT_TRUE(t->packet.mxh);
      EXPECT_EQ(t->packet.mxh->ev, 0xc003u);
      EXPECT_EQ(t->packet.mxh->plane, 3u);
      ASSERT_TRUE(t->packet.reth);
      EXPECT_EQ(t->packet.reth->dlen, 3u * 4096);
      EXPECT_EQ(t->dscp(), 10u);
      EXPECT_EQ(t->ip_bytes_held, ip_bytes);
      EXPECT_EQ(t->short_of_ip_length(), !rewrite);
    }
  }
}

TEST(TrimmedFrame, KeepsTheHeadersBeforeTheCutAndNoneAfterIt) {
  const std::vector<uint8_t> whole = build_frame(ext_write(false));
  const size_t to_mxh_end = 20 + 8 + 12 + kMxhSize;
  auto mid_reth = read_trimmed_frame(cut(whole, to_mxh_end + 7, false, false));
  ASSERT_TRUE(mid_reth);
  EXPECT_TRUE(mid_reth->packet.mxh);
  EXPECT_FALSE(mid_reth->packet.reth);  // cut inside it: MR-TR-18 still NAKs
  auto mid_mxh = read_trimmed_frame(cut(whole, to_mxh_end - 1, false, false));
  ASSERT_TRUE(mid_mxh);
  EXPECT_FALSE(mid_mxh->packet.mxh);  // cut before the MXH's end: discarded (MR-TR-18)
  EXPECT_FALSE(read_trimmed_frame(cut(whole, 20 + 8 + 11, false, false)));  // no whole BTH
}

TEST(TrimmedFrame, AWholeFrameIsNotShortOfItsIpLength) {
  const auto t = read_trimmed_frame(build_frame(ext_write(false)));
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->short_of_ip_length());
  EXPECT_TRUE(t->packet.reth);
}

TEST(TrimmedFrame, RefusesWhatIsNotRoce) {
  std::vector<uint8_t> frame = build_frame(ext_write(false));
  frame[kEtherBytes + 20 + 2] = 0x13;  // UDP destination port 0x13B7, no longer 4791
  EXPECT_FALSE(read_trimmed_frame(frame));
  EXPECT_FALSE(read_trimmed_frame(std::vector<uint8_t>(10, 0)));
}

}  // namespace
}  // namespace mr::wire
