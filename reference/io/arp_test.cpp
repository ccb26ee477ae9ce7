#include "reference/io/arp.h"

#include <gtest/gtest.h>

namespace mr::io {
namespace {

TEST(Arp, BuildsAndParsesARequest) {
  const auto mac = *wire::MacAddress::parse("02:00:00:00:00:01");
  const Arp request = Arp::request(mac, {{198, 18, 0, 1}}, {{198, 18, 0, 2}});
  const auto frame = build_arp_frame(request);
  ASSERT_EQ(frame.size(), 60U);
  // Ether ff:ff:ff:ff:ff:ff <- 02:..:01 type 0x0806 / ARP who-has 198.18.0.2 tell 198.18.0.1
  const std::vector<uint8_t> head = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0,  0, 0, 0,
                                     1,    0x08, 0x06, 0,    1,    0x08, 0,    6,  4, 0, 1,
                                     0x02, 0,    0,    0,    0,    1,    198,  18, 0, 1, 0,
                                     0,    0,    0,    0,    0,    198,  18,   0,  2};
  EXPECT_TRUE(std::equal(head.begin(), head.end(), frame.begin()));
  EXPECT_TRUE(std::all_of(frame.begin() + 42, frame.end(), [](uint8_t b) { return b == 0; }));
  EXPECT_EQ(Arp::parse(frame), request);
}

TEST(Arp, ReplySwapsTheParties) {
  const auto a = *wire::MacAddress::parse("02:00:00:00:00:01");
  const auto b = *wire::MacAddress::parse("02:00:00:00:00:02");
  const Arp request = Arp::request(a, {{198, 18, 0, 1}}, {{198, 18, 0, 2}});
  const Arp reply = Arp::reply_to(request, b);
  EXPECT_EQ(reply.op, Arp::kReply);
  EXPECT_EQ(reply.hwsrc, b);
  EXPECT_EQ(reply.psrc, request.pdst);
  EXPECT_EQ(reply.hwdst, a);
  EXPECT_EQ(reply.pdst, request.psrc);
  const auto frame = build_arp_frame(reply);
  EXPECT_TRUE(std::equal(a.bytes.begin(), a.bytes.end(), frame.begin()));  // unicast back
}

TEST(Arp, RejectsWhatIsNotEthernetIpv4Arp) {
  auto frame = build_arp_frame(Arp{});
  EXPECT_TRUE(Arp::parse(frame));
  EXPECT_FALSE(Arp::parse(std::span(frame).first(41)));
  auto wrong_type = frame;
  wrong_type[13] = 0x00;  // IPv4 ethertype
  EXPECT_FALSE(Arp::parse(wrong_type));
  auto wrong_hlen = frame;
  wrong_hlen[18] = 8;
  EXPECT_FALSE(Arp::parse(wrong_hlen));
}

}  // namespace
}  // namespace mr::io
