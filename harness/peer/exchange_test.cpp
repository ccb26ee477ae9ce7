// The tools' exchange formats: bytes as ibv_rc_pingpong and perftest 6.06 write them (the
// sample messages below were written by hand from the formats), both directions, and a
// clear error naming the field for each kind of malformation.
#include <gtest/gtest.h>

#include <string>

#include "harness/peer/perftest_exchange.h"
#include "harness/peer/pingpong_exchange.h"

namespace mr::peer {
namespace {

wire::Ipv6Address mapped(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  wire::Ipv6Address g;
  g.bytes[10] = g.bytes[11] = 0xff;
  g.bytes[12] = a;
  g.bytes[13] = b;
  g.bytes[14] = c;
  g.bytes[15] = d;
  return g;
}

// ::ffff:198.18.0.2, QPN 0x11, PSN 0xabcdef, as the tool in the guest sends it.
const std::string kToolPingpong =
    std::string("0000:000011:abcdef:00000000000000000000ffffc6120002") + '\0';

TEST(PingpongExchange, ParsesTheToolsMessage) {
  ASSERT_EQ(kToolPingpong.size(), kPingpongMessageSize);
  auto d = parse_pingpong_message(kToolPingpong);
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->lid, 0);
  EXPECT_EQ(d->qpn, 0x11U);
  EXPECT_EQ(d->psn, 0xabcdefU);
  EXPECT_EQ(d->gid.bytes, mapped(198, 18, 0, 2).bytes);
}

TEST(PingpongExchange, FormatsFiftyTwoBytesThatParseBack) {
  const PingpongDest me{.lid = 0, .qpn = 0x123456, .psn = 0x42, .gid = mapped(198, 18, 0, 1)};
  const std::string wire = format_pingpong_message(me);
  EXPECT_EQ(wire, std::string("0000:123456:000042:00000000000000000000ffffc6120001") + '\0');
  auto back = parse_pingpong_message(wire);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->qpn, me.qpn);
  EXPECT_EQ(back->psn, me.psn);
  EXPECT_EQ(back->gid.bytes, me.gid.bytes);
}

TEST(PingpongExchange, MalformedMessagesNameTheField) {
  std::string bad = kToolPingpong;
  bad[6] = 'x';  // in the QPN
  auto e = parse_pingpong_message(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("field qpn"), std::string::npos) << e.error();
  EXPECT_NE(e.error().find("not hexadecimal"), std::string::npos) << e.error();

  bad = kToolPingpong;
  bad[40] = 'g';  // in the GID
  e = parse_pingpong_message(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("field gid"), std::string::npos) << e.error();

  e = parse_pingpong_message(kToolPingpong.substr(0, 40));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("40 bytes, expected 52"), std::string::npos) << e.error();

  bad = kToolPingpong;
  bad[4] = '-';  // LID and QPN run together
  e = parse_pingpong_message(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("expected 4"), std::string::npos) << e.error();
}

// lid 0, out_reads 0x10, QPN 0x12, PSN 0x345678, rkey 0x1234abcd, vaddr 0x55d0c0a01000,
// GID ::ffff:198.18.0.2, srqn 0.
const std::string kToolKeys = std::string(
                                  "0000:0010:000012:345678:1234abcd:000055d0c0a01000:"
                                  "00:00:00:00:00:00:00:00:00:00:ff:ff:c6:12:00:02:00000000:") +
                              '\0';

TEST(PerftestExchange, ParsesTheToolsKeys) {
  ASSERT_EQ(kToolKeys.size(), kPerftestKeysSize);
  auto k = parse_perftest_keys(kToolKeys);
  ASSERT_TRUE(k) << k.error();
  EXPECT_EQ(k->out_reads, 0x10);
  EXPECT_EQ(k->qpn, 0x12U);
  EXPECT_EQ(k->psn, 0x345678U);
  EXPECT_EQ(k->rkey, 0x1234abcdU);
  EXPECT_EQ(k->vaddr, 0x55d0c0a01000ULL);
  EXPECT_EQ(k->gid.bytes, mapped(198, 18, 0, 2).bytes);
  EXPECT_EQ(k->srqn, 0U);
}

TEST(PerftestExchange, FormatsKeysThatParseBack) {
  const PerftestKeys mine{.lid = 0,
                          .out_reads = 16,
                          .qpn = 0x11,
                          .psn = 0xabcdef,
                          .rkey = 0xdeadbeef,
                          .vaddr = 0x1000,
                          .gid = mapped(198, 18, 0, 1),
                          .srqn = 0};
  const std::string wire = format_perftest_keys(mine);
  EXPECT_EQ(wire, std::string("0000:0010:000011:abcdef:deadbeef:0000000000001000:"
                              "00:00:00:00:00:00:00:00:00:00:ff:ff:c6:12:00:01:00000000:") +
                      '\0');
  auto back = parse_perftest_keys(wire);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->rkey, mine.rkey);
  EXPECT_EQ(back->vaddr, mine.vaddr);
}

TEST(PerftestExchange, MalformedKeysNameTheField) {
  std::string bad = kToolKeys;
  bad[24] = 'z';  // in the rkey
  auto e = parse_perftest_keys(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("field rkey"), std::string::npos) << e.error();

  bad = kToolKeys;
  bad[50] = 'q';  // the GID's first byte
  e = parse_perftest_keys(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("field gid[0]"), std::string::npos) << e.error();

  bad = kToolKeys;
  bad[106] = '\0';  // the srqn's closing ':' lost
  e = parse_perftest_keys(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("expected 23"), std::string::npos) << e.error();

  e = parse_perftest_keys(kToolKeys.substr(0, 59));  // the message without a GID
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("59 bytes, expected 108"), std::string::npos) << e.error();
}

TEST(PerftestExchange, VersionIntsAndMtu) {
  const std::string v = format_perftest_version("6.06");
  ASSERT_EQ(v.size(), kPerftestVersionSize);
  auto back = parse_perftest_version(v);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, "6.06");
  auto old = parse_perftest_version(format_perftest_version("5.60"));
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().find("older than 5.70"), std::string::npos) << old.error();
  EXPECT_FALSE(parse_perftest_version(format_perftest_version("x")));

  EXPECT_EQ(format_perftest_int(4096), std::string("\0\0\x10\0", 4));
  auto page = parse_perftest_int(std::string("\0\0\x10\0", 4), "cycle buffer size");
  ASSERT_TRUE(page) << page.error();
  EXPECT_EQ(*page, 4096);
  auto short_int = parse_perftest_int("ab", "cache line size");
  ASSERT_FALSE(short_int);
  EXPECT_NE(short_int.error().find("cache line size: 2 bytes, expected 4"), std::string::npos);

  EXPECT_EQ(format_perftest_mtu(1024), std::string("3\0", 2));
  EXPECT_EQ(format_perftest_mtu(4096), std::string("5\0", 2));
  auto mtu = parse_perftest_mtu(std::string("5\0", 2));
  ASSERT_TRUE(mtu) << mtu.error();
  EXPECT_EQ(*mtu, 4096U);
  auto bad_mtu = parse_perftest_mtu(std::string("9\0", 2));
  ASSERT_FALSE(bad_mtu);
  EXPECT_NE(bad_mtu.error().find("not an ibv_mtu value"), std::string::npos);
}

}  // namespace
}  // namespace mr::peer
