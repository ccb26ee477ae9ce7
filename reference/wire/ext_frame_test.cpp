// Part II frames (spec section 19): the header sets of table 19.1 under TVer 1, SECH and
// SecTag behind the SX bit, the errors a hostile Ext frame draws, and the spec's own worked
// examples decoded and rebuilt byte for byte.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace mr::wire {
namespace {

RocePacket ext_packet(uint8_t opcode, bool ipv6 = false) {
  RocePacket p;
  if (ipv6) {
    Ipv6 ip;
    ip.src = *Ipv6Address::parse("2001:2::1");
    ip.dst = *Ipv6Address::parse("2001:2::2");
    p.ip = ip;
    p.eth.type = kEtherTypeIpv6;
  } else {
    Ipv4 ip;
    ip.src = *Ipv4Address::parse("198.18.0.1");
    ip.dst = *Ipv4Address::parse("198.18.0.2");
    p.ip = ip;
  }
  p.udp.sport = 0xc000;
  p.udp.dport = kRoceV2Port;
  p.bth.opcode = opcode;
  p.bth.version = kExtVersion;
  p.bth.dqpn = 0x12;
  p.bth.psn = 0x100;
  return p;
}

// Fills every slot the Ext table names for the packet's opcode, with recognisable values.
void fill_headers(RocePacket& p) {
  const OpcodeInfo* info = opcode_info(p.bth.opcode, p.bth.header_set());
  ASSERT_NE(info, nullptr);
  if (info->has(kSech)) {
    auto& h = p.sech.emplace();
    h.epoch = 1;
    h.spi = 0x101;
    h.pn = 7;
    h.htag.bytes.fill(0x5a);
  }
  if (info->has(kMxh)) {
    auto& h = p.mxh.emplace();
    h.retx = 1;
    h.ar = 1;
    h.plane = 3;
    h.ev = 0xc021;
    h.msn = 5;
    h.offset = 4096;
  }
  if (info->has(kReth)) {
    auto& h = p.reth.emplace();
    h.va = 0x10000000;
    h.rkey = 0x1234;
    h.dlen = 8;
  }
  if (info->has(kAtomicEth)) p.atomic_eth.emplace().swap = 2;
  if (info->has(kImmDt)) p.imm_dt.emplace().imm = 0xabcd;
  if (info->has(kIeth)) p.ieth.emplace().rkey = 0x55;
  if (info->has(kAeth)) p.aeth.emplace().syndrome = 0x1f;
  if (info->has(kAtomicAckEth)) p.atomic_ack_eth.emplace().orig = 42;
  if (info->has(kSacketh)) {
    auto& h = p.sacketh.emplace();
    h.ara = 1;
    h.sack_ref = 0x100;
    h.bitmap = 0x5;
    h.sack_offset = 0xfff8;
  }
  if (info->has(kCreth)) p.creth.emplace().credit = 0x280;
  if (info->has(kRsyneth)) {
    auto& h = p.rsyneth.emplace();
    h.code = 2;
    h.end = 1;
    h.count = 3;
  }
  if (p.bth.sx()) p.sec_tag.emplace().tag.bytes.fill(0xee);
}

std::vector<std::string> layer_names(const RocePacket& p) {
  std::vector<std::string> names;
  p.for_each_header_after_ether([&](const auto& h) { names.emplace_back(h.kName); });
  return names;
}

TEST(ExtFrame, EveryOpcodeOfTable19_1RoundTripsOverIpv4AndIpv6) {
  const uint8_t payload[] = {'M', 'e', 't', 'a', 'R', 'o', 'C', 'E'};
  int opcodes = 0;
  for (bool secure : {false, true}) {
    for (int op = 0; op < 256; ++op) {
      const auto set = secure ? HeaderSet::kExtSecure : HeaderSet::kExt;
      const OpcodeInfo* info = opcode_info(static_cast<uint8_t>(op), set);
      if (!info) continue;
      ++opcodes;
      for (bool ipv6 : {false, true}) {
        RocePacket p = ext_packet(static_cast<uint8_t>(op), ipv6);
        if (secure) p.bth.resv7 = Bth::kResv7Sx;
        fill_headers(p);
        if (info->is(kPayload)) p.payload = payload;
        const auto frame = build_frame(p);
        auto d = decode_frame(frame);
        ASSERT_TRUE(d) << info->name() << ": " << d.error().to_string();
        const auto& got = std::get<DecodedRoce>(*d);
        EXPECT_TRUE(got.opcode_known);
        EXPECT_TRUE(got.icrc_ok()) << info->name();
        EXPECT_EQ(layer_names(got.packet), layer_names(p)) << info->name();
        EXPECT_EQ(got.packet.mxh, p.mxh);
        EXPECT_EQ(got.packet.sacketh, p.sacketh);
        EXPECT_EQ(got.packet.sech, p.sech);
        EXPECT_EQ(got.packet.sec_tag, p.sec_tag);
        EXPECT_EQ(got.packet.creth, p.creth);
        EXPECT_EQ(got.packet.rsyneth, p.rsyneth);
        EXPECT_EQ(got.packet.reth, p.reth);
        EXPECT_EQ(std::vector(got.packet.payload.begin(), got.packet.payload.end()),
                  std::vector(p.payload.begin(), p.payload.end()));
        RocePacket again = got.packet;
        EXPECT_EQ(build_frame(again), frame) << info->name();
      }
    }
  }
  EXPECT_EQ(opcodes, 2 * 26);  // table 19.1: 23 RC operations and PROBE, CREDIT, RESYNC
}

TEST(ExtFrame, Table19_1GivesEveryWritePacketARethAndEveryAckASacketh) {
  const auto* middle = opcode_info(kOpRcRdmaWriteMiddle, HeaderSet::kExt);
  ASSERT_NE(middle, nullptr);
  EXPECT_EQ(middle->headers, kMxh | kReth);
  EXPECT_EQ(opcode_info(kOpRcRdmaWriteMiddle)->headers, 0);  // base: no RETH
  EXPECT_EQ(opcode_info(kOpRcAtomicAcknowledge, HeaderSet::kExt)->headers,
            kAeth | kAtomicAckEth | kSacketh);
  EXPECT_EQ(opcode_info(kOpRcRdmaReadResponseMiddle, HeaderSet::kExt)->headers, kMxh);
  EXPECT_EQ(opcode_info(kOpExtResync, HeaderSet::kExtSecure)->headers, kSech | kMxh | kRsyneth);
  EXPECT_EQ(opcode_info(kOpExtResync, HeaderSet::kExtSecure)->header_bytes(), 24u + 20u + 4u);
  EXPECT_EQ(opcode_info(kOpExtProbe), nullptr);  // Part II opcodes exist under TVer 1 only
  EXPECT_EQ(opcode_name(kOpExtCredit, HeaderSet::kExt), "RC_CREDIT");
  EXPECT_EQ(opcode_info(kOpUcSendOnly, HeaderSet::kExt), nullptr);
  EXPECT_EQ(opcode_info(kOpRcFlush, HeaderSet::kExt), nullptr);
}

TEST(ExtFrame, SxBitAloneDecidesWhetherASechFollows) {
  RocePacket p = ext_packet(kOpRcSendOnly);
  fill_headers(p);
  const uint8_t payload[64] = {};
  p.payload = payload;
  const auto frame = build_frame(p);
  auto plain = decode_frame(frame);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(std::get<DecodedRoce>(*plain).packet.sech);
  EXPECT_FALSE(std::get<DecodedRoce>(*plain).packet.sec_tag);

  // The same bytes with SX set: the first 24 bytes after the BTH are now a SECH and the
  // last 16 before the ICRC the tag (the ICRC no longer matches, which decode reports).
  auto marked = frame;
  const size_t bth_at = Ether::kSize + 20 + Udp::kSize;
  marked[bth_at + 8] |= Bth::kResv7Sx;
  auto secure = decode_frame(marked);
  ASSERT_TRUE(secure) << secure.error().to_string();
  const auto& s = std::get<DecodedRoce>(*secure);
  ASSERT_TRUE(s.packet.sech);
  ASSERT_TRUE(s.packet.sec_tag);
  EXPECT_EQ(s.packet.payload.size(), 64u - kSechSize - kSecTagSize);
  EXPECT_FALSE(s.icrc_ok());

  // In a base packet the same bit is only a reserved one.
  auto base = frame;
  base[bth_at + 1] &= 0xf0;  // TVer 0
  base[bth_at + 8] |= Bth::kResv7Sx;
  auto b = decode_frame(base);
  ASSERT_TRUE(b);
  EXPECT_FALSE(std::get<DecodedRoce>(*b).packet.mxh);
  EXPECT_FALSE(std::get<DecodedRoce>(*b).packet.sech);
}

TEST(ExtFrame, TruncatedExtHeadersAreNamedWithTheirOffset) {
  RocePacket p = ext_packet(kOpRcAcknowledge);
  fill_headers(p);
  auto frame = build_frame(p);
  // Cut the SACKETH: keep BTH and AETH, and 10 bytes of it, then the ICRC.
  const size_t bth_at = Ether::kSize + 20 + Udp::kSize;
  RocePacket cut = p;
  cut.sacketh.reset();
  const uint8_t partial[10] = {};
  cut.payload = partial;
  auto short_frame = build_frame(cut);
  auto d = decode_frame(short_frame);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().header, "SACKETH");
  EXPECT_EQ(d.error().offset, bth_at + kBthSize + kAethSize);
  EXPECT_NE(d.error().reason.find("implies SACKETH"), std::string::npos) << d.error().reason;

  // A secure packet too short for its tag names the SecTag.
  RocePacket probe = ext_packet(kOpExtProbe);
  probe.bth.resv7 = Bth::kResv7Sx;
  fill_headers(probe);
  probe.sec_tag.reset();
  const uint8_t eight[8] = {};
  probe.payload = eight;
  const auto probe_frame = build_frame(probe);
  auto m = decode_frame(probe_frame, Framing::kEthernet);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().error.header, "SecTag");
  // The headers read whole before the error are kept, as tshark shows them.
  EXPECT_TRUE(m.error().parsed.packet.sech);
  EXPECT_TRUE(m.error().parsed.packet.mxh);
}

TEST(ExtFrame, PartIIControlPacketsCarryNoPayload) {
  for (uint8_t op : {kOpExtProbe, kOpExtCredit, kOpExtResync}) {
    RocePacket p = ext_packet(op);
    fill_headers(p);
    const uint8_t extra[4] = {1, 2, 3, 4};
    p.payload = extra;
    const auto frame = build_frame(p);
    auto d = decode_frame(frame);
    ASSERT_FALSE(d) << opcode_name(op, HeaderSet::kExt);
    EXPECT_EQ(d.error().field, "opcode");
    EXPECT_NE(d.error().reason.find("carries no payload"), std::string::npos);
  }
}

TEST(ExtFrame, ExtOpcodeOutsideTable19_1IsShownAsPayload) {
  RocePacket p = ext_packet(kOpUdSendOnly);
  const uint8_t bytes[12] = {};
  p.payload = bytes;
  const auto frame = build_frame(p);
  auto d = decode_frame(frame);
  ASSERT_TRUE(d);
  const auto& got = std::get<DecodedRoce>(*d);
  EXPECT_FALSE(got.opcode_known);
  EXPECT_FALSE(got.packet.deth);
  EXPECT_EQ(got.packet.payload.size(), 12u);
}

TEST(ExtFrame, SackBitmapBaseFollowsTheSignedOffset) {
  Sacketh s;
  s.sack_ref = 0x000008;
  s.bitmap = 0b1001;
  s.sack_offset = static_cast<uint16_t>(-16);
  EXPECT_EQ(s.signed_offset(), -16);
  EXPECT_EQ(s.bitmap_base(), u24(0xfffff8));  // wraps modulo 2^24
  EXPECT_TRUE(s.acknowledges(0xfffff8));
  EXPECT_FALSE(s.acknowledges(0xfffff9));
  EXPECT_TRUE(s.acknowledges(0xfffffb));
  EXPECT_FALSE(s.acknowledges(0x000008 + 64));
}

// The Part II worked examples of spec section 27, from the catalog: each decodes as the
// header set its opcode implies with a correct ICRC, and rebuilds to the same bytes.
TEST(ExtFrame, SpecWorkedExamplesDecodeAndRebuildByteForByte) {
  std::ifstream in("docs/spec/clauses.json");
  ASSERT_TRUE(in) << "docs/spec/clauses.json";
  const auto catalog = nlohmann::json::parse(in);
  int ext = 0;
  for (const auto& e : catalog.at("examples")) {
    std::vector<uint8_t> bytes;
    const std::string hex = e.at("hex");
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      bytes.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    std::vector<uint8_t> frame;
    if (e.at("layer") == "ip") {  // an IP packet: give it an Ethernet header
      frame = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
      if ((bytes[0] >> 4) == 6) frame[13] = 0xdd, frame[12] = 0x86;
    }
    frame.insert(frame.end(), bytes.begin(), bytes.end());
    auto d = decode_frame(frame);
    ASSERT_TRUE(d) << e.at("id") << ": " << d.error().to_string();
    const auto* roce = std::get_if<DecodedRoce>(&*d);
    if (!roce || !roce->packet.bth.is_ext()) continue;
    ++ext;
    EXPECT_TRUE(roce->opcode_known) << e.at("id");
    EXPECT_TRUE(roce->icrc_ok()) << e.at("id");
    const OpcodeInfo* info = opcode_info(roce->packet.bth.opcode, roce->packet.bth.header_set());
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(roce->packet.mxh.has_value(), info->has(kMxh)) << e.at("id");
    EXPECT_EQ(roce->packet.sacketh.has_value(), info->has(kSacketh)) << e.at("id");
    BuildOptions keep;
    keep.fill_icrc = false;
    keep.fill_ip_checksum = false;
    keep.fill_ip_length = false;
    keep.fill_udp_length = false;
    EXPECT_EQ(build_frame(roce->packet, keep), frame) << e.at("id");
  }
  EXPECT_GE(ext, 15);
}

}  // namespace
}  // namespace mr::wire
