#include "reference/wire/icrc.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace mr::wire {
namespace {

std::vector<uint8_t> hex(std::string_view s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(s.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// Vectors from notes/protocol.md §1.7: IP header .. pad, then the ICRC's wire bytes.
TEST(Icrc, MatchesScapyUcSendOnlyVectorV1) {
  const auto pkt =
      hex("45010040047840004011b4d5c0a80007c0a80007c00012b7002caca22460ffff000000d300cf17104630818b"
          "e28935d90e9a95505401be885e500000");
  EXPECT_EQ(IcrcCalculator::icrc(pkt), 0x78f353f3U);
}

TEST(Icrc, MatchesCapturedConnectX4CnpV2) {
  const auto frame =
      hex("e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b70028000081"
          "00ffff40000118000000000000000000000000000000000000000082fd002a");
  const std::span<const uint8_t> ip(frame.data() + 14, frame.size() - 14 - 4);
  EXPECT_EQ(IcrcCalculator::icrc(ip), 0x82fd002aU);
}

TEST(Icrc, MatchesRcAckOverIpv4V3) {
  const auto pkt = hex(
      "456a003000004000401126510a0000010a000002c12312b7001c00001100ffff00000012000001001f000001");
  EXPECT_EQ(IcrcCalculator::icrc(pkt), 0x75b3aa37U);
}

TEST(Icrc, MatchesRcSendOnlyOverIpv6V4) {
  const auto pkt =
      hex("66a123450020114020010db800000000000000000000000120010db800000000000000000000000"
          "2d00d12b7002000000430ffff000000348000abcd68656c6c6f000000");
  EXPECT_EQ(IcrcCalculator::icrc(pkt), 0xd1befc75U);
}

TEST(Icrc, IgnoresFieldsThatMayChangeInFlight) {
  auto pkt = hex(
      "456a003000004000401126510a0000010a000002c12312b7001c00001100ffff00000012000001001f000001");
  const uint32_t before = IcrcCalculator::icrc(pkt);
  pkt[1] = 0x03;          // tos: ECN CE mark
  pkt[8] = 0x01;          // ttl
  pkt[10] = pkt[11] = 0;  // ip checksum
  pkt[26] = 0x12;         // udp checksum
  pkt[28 + 4] = 0xc0;     // BTH fecn + becn
  EXPECT_EQ(IcrcCalculator::icrc(pkt), before);
}

TEST(Icrc, CoversFieldsThatMayNotChange) {
  const auto base = hex(
      "456a003000004000401126510a0000010a000002c12312b7001c00001100ffff00000012000001001f000001");
  const uint32_t before = IcrcCalculator::icrc(base);
  // ip id, ip src, udp sport, udp len, BTH pkey, resv7, psn, AETH msn.
  for (size_t at : {4U, 12U, 20U, 24U, 30U, 36U, 39U, 43U}) {
    auto pkt = base;
    pkt[at] ^= 0x01;
    EXPECT_NE(IcrcCalculator::icrc(pkt), before) << "byte " << at;
  }
}

// The ICRC the slow, obvious way: a masked copy and a bit-at-a-time CRC over the 0xFF LRH
// bytes and the copy.
uint32_t icrc_bitwise(std::vector<uint8_t> pkt) {
  const bool v6 = (pkt[0] >> 4) == 6;
  const size_t ip = v6 ? 40 : (pkt[0] & 0x0fU) * 4;
  std::vector<size_t> masked =
      v6 ? std::vector<size_t>{1, 2, 3, 7} : std::vector<size_t>{1, 8, 10, 11};
  for (size_t at : {ip + 6, ip + 7, ip + 12}) masked.push_back(at);
  if (v6) pkt[0] |= 0x0f;
  for (size_t at : masked) pkt[at] = 0xff;
  std::vector<uint8_t> all(8, 0xff);
  all.insert(all.end(), pkt.begin(), pkt.end());
  uint32_t c = 0xffffffff;
  for (uint8_t b : all) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xedb88320 : c >> 1;
  }
  return __builtin_bswap32(~c);
}

TEST(Icrc, AgreesWithBitwiseOnEveryPacketLengthOverIpv4AndIpv6) {
  std::vector<uint8_t> data(4200);
  uint32_t x = 777;
  for (auto& b : data) b = static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 16);
  // Every length across the copied prefix's edge (256 bytes) and a few long ones.
  for (size_t n = 44; n <= data.size(); n += (n < 600 ? 1 : 97)) {
    for (uint8_t first : {uint8_t{0x45}, uint8_t{0x46}, uint8_t{0x4f}, uint8_t{0x60}}) {
      std::vector<uint8_t> pkt(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
      pkt[0] = first;
      const size_t ip = first == 0x60 ? 40 : (first & 0x0fU) * 4;
      if (ip + 8 + 12 > n) continue;  // IP + UDP + BTH must fit
      EXPECT_EQ(IcrcCalculator::icrc(pkt), icrc_bitwise(pkt)) << n << " " << int{first};
    }
  }
}

TEST(Icrc, SliceBy8AgreesWithBytewiseOnEveryLength) {
  std::vector<uint8_t> data(100);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 37 + 11);
  for (size_t n = 0; n <= data.size(); ++n) {
    uint32_t bitwise = 0xffffffff;
    for (size_t i = 0; i < n; ++i) {
      bitwise ^= data[i];
      for (int k = 0; k < 8; ++k)
        bitwise = (bitwise & 1) ? (bitwise >> 1) ^ 0xedb88320 : bitwise >> 1;
    }
    EXPECT_EQ(IcrcCalculator::update(0xffffffff, std::span(data).first(n)), bitwise) << n;
  }
}

TEST(Icrc, FastPathAgreesWithTablesOnEveryLengthAndState) {
  // Up to a jumbo frame: the folding path below 256 bytes, ISA-L above.
  std::vector<uint8_t> data(9100);
  uint32_t x = 12345;
  for (auto& b : data) b = static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 16);
  for (size_t n = 0; n <= data.size(); n += (n < 300 ? 1 : 37)) {
    for (uint32_t state : {0xffffffffU, 0U, 0xdebb20e3U, x}) {
      const auto s = std::span(data).subspan(data.size() - n);  // unaligned starts too
      EXPECT_EQ(IcrcCalculator::update(state, s), IcrcCalculator::update_tables(state, s)) << n;
    }
  }
}

}  // namespace
}  // namespace mr::wire
