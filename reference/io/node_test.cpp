#include "reference/io/node.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "reference/io/arp.h"
#include "reference/io/icmp_echo.h"
#include "reference/io/internet_checksum.h"
#include "reference/io/memory_link.h"
#include "reference/io/neighbor_discovery.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace mr::io {
namespace {

using wire::Ipv4Address;
using wire::Ipv6Address;
using wire::MacAddress;

// The addresses scapy_node_frames.py uses.
const MacAddress kMacA{{0x02, 0, 0, 0, 0, 0x0a}};
const MacAddress kMacB{{0x02, 0, 0, 0, 0, 0x0b}};
const Ipv4Address kIpA{{198, 18, 0, 1}};
const Ipv4Address kIpB{{198, 18, 0, 2}};
const Ipv6Address kLinkLocalA = *Ipv6Address::parse("fe80::ff:fe00:a");
const Ipv6Address kLinkLocalB = *Ipv6Address::parse("fe80::ff:fe00:b");

std::string hex(std::span<const uint8_t> bytes) {
  std::string s;
  char buf[3];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

// Scapy's frames, generated at build time by scapy_node_frames.py.
const std::map<std::string, std::string>& scapy_frames() {
  static const auto* frames = [] {
    auto* m = new std::map<std::string, std::string>;  // NOLINT: a leaked test singleton
    std::ifstream in("reference/io/scapy_node_frames.txt");
    std::string name, value;
    while (in >> name >> value) (*m)[name] = value;
    return m;
  }();
  return *frames;
}

std::string scapy(const std::string& name) {
  const auto it = scapy_frames().find(name);
  return it == scapy_frames().end() ? "missing " + name : it->second;
}

// Node B on one end of a memory link; the test plays its peer on the other end.
class NodeTest : public ::testing::Test {
 protected:
  NodeTest() : pair_(clock_), node_(pair_.b(), clock_, {.mac = kMacB, .ipv4 = kIpB}) {}

  void peer_sends(std::vector<uint8_t> frame) {
    const Frame f{std::move(frame), 0};
    ASSERT_EQ(pair_.a().send_burst(std::span(&f, 1)), 1U);
    ASSERT_EQ(node_.poll(16, 0), 1U);
  }
  std::vector<std::vector<uint8_t>> peer_receives() {
    std::vector<Frame> out(16);
    const size_t n = pair_.a().receive_burst(out, 0);
    std::vector<std::vector<uint8_t>> v;
    for (size_t i = 0; i < n; ++i) v.push_back(out[i].bytes);
    return v;
  }

  VirtualClock clock_;
  MemoryLinkPair pair_;
  Node node_;
};

TEST_F(NodeTest, AnswersArpRequestByteForByte) {
  peer_sends(build_arp_frame(Arp::request(kMacA, kIpA, kIpB)));
  const auto replies = peer_receives();
  ASSERT_EQ(replies.size(), 1U);
  // Ether 02:..:0b -> 02:..:0a type ARP / ARP is-at: 02:..:0b 198.18.0.2 -> 02:..:0a
  // 198.18.0.1 / 18 zero bytes of padding to 60
  EXPECT_EQ(hex(replies[0]),
            "02000000000a02000000000b0806"
            "0001080006040002"
            "02000000000b"
            "c6120002"
            "02000000000a"
            "c6120001"
            "000000000000000000000000000000000000");
  EXPECT_EQ(hex(replies[0]), scapy("arp_reply"));
  EXPECT_EQ(node_.counters().arp_replies_sent, 1U);
  EXPECT_EQ(node_.lookup(kIpA), kMacA);  // learnt from the request
}

TEST_F(NodeTest, IgnoresArpForOtherAddresses) {
  peer_sends(build_arp_frame(Arp::request(kMacA, kIpA, Ipv4Address{{198, 18, 0, 9}})));
  EXPECT_TRUE(peer_receives().empty());
  EXPECT_EQ(node_.counters().drops(NodeDropReason::kNotForUs), 1U);
}

TEST_F(NodeTest, SendsArpRequestAsScapyBuildsIt) {
  Node a(pair_.a(), clock_, {.mac = kMacA, .ipv4 = kIpA});
  ASSERT_TRUE(a.solicit(kIpB));
  std::vector<Frame> out(4);
  ASSERT_EQ(pair_.b().receive_burst(out, 0), 1U);
  EXPECT_EQ(hex(out[0].bytes), scapy("arp_request"));
}

TEST_F(NodeTest, SendsNeighborSolicitationAsScapyBuildsIt) {
  Node a(pair_.a(), clock_, {.mac = kMacA, .ipv4 = kIpA});
  EXPECT_EQ(a.ipv6_link_local(), kLinkLocalA);
  ASSERT_TRUE(a.solicit(kLinkLocalB));
  std::vector<Frame> out(4);
  ASSERT_EQ(pair_.b().receive_burst(out, 0), 1U);
  EXPECT_EQ(hex(out[0].bytes), scapy("neighbor_solicitation"));
}

TEST_F(NodeTest, AnswersNeighborSolicitationByteForByte) {
  peer_sends(build_neighbor_solicitation_frame(kMacA, kLinkLocalA, kLinkLocalB));
  const auto replies = peer_receives();
  ASSERT_EQ(replies.size(), 1U);
  // Ether -> 02:..:0a / IPv6 fe80::ff:fe00:b -> fe80::ff:fe00:a plen 32 nh 58 hlim 255 /
  // NA S O tgt fe80::ff:fe00:b checksum 0x1af6 / target lladdr 02:..:0b
  EXPECT_EQ(hex(replies[0]),
            "02000000000a02000000000b86dd"
            "6000000000203aff"
            "fe80000000000000000000fffe00000b"
            "fe80000000000000000000fffe00000a"
            "88001af660000000"
            "fe80000000000000000000fffe00000b"
            "020102000000000b");
  EXPECT_EQ(hex(replies[0]), scapy("neighbor_advertisement"));
  EXPECT_EQ(node_.lookup(kLinkLocalA), kMacA);
}

TEST_F(NodeTest, DefendsItsAddressAgainstDuplicateAddressDetection) {
  auto ns = build_neighbor_solicitation_frame(kMacA, Ipv6Address{}, kLinkLocalB);
  // DAD carries no source link-layer option: cut it and fix plen and checksum by rebuilding.
  std::vector<uint8_t> message(ns.begin() + 54, ns.end() - 8);
  message[2] = message[3] = 0;
  const Ipv6Address group = solicited_node_multicast(kLinkLocalB);
  const uint16_t sum = ipv6_upper_layer_checksum({}, group, kIpProtoIcmpv6, message);
  message[2] = static_cast<uint8_t>(sum >> 8);
  message[3] = static_cast<uint8_t>(sum);
  peer_sends(
      build_ipv6_frame(kMacA, ipv6_multicast_mac(group), {}, group, kIpProtoIcmpv6, message, 255));
  const auto replies = peer_receives();
  ASSERT_EQ(replies.size(), 1U);
  auto ip = parse_ip_frame(replies[0]);
  ASSERT_TRUE(ip && *ip);
  const auto& v6 = std::get<wire::Ipv6>((*ip)->ip);
  EXPECT_EQ(v6.dst.to_string(), "ff02::1");
  auto na = parse_neighbor_discovery(v6, (*ip)->payload);
  ASSERT_TRUE(na && *na) << (na ? "not ND" : na.error());
  EXPECT_FALSE(std::get<NeighborAdvertisement>(**na).S);
}

TEST_F(NodeTest, RejectsNeighborSolicitationWithBadChecksumOrHopLimit) {
  auto ns = build_neighbor_solicitation_frame(kMacA, kLinkLocalA, kLinkLocalB);
  auto bad_sum = ns;
  bad_sum[56] ^= 0x01;
  peer_sends(bad_sum);
  auto bad_hops = ns;
  bad_hops[21] = 64;  // hop limit: not 255, so not from this link
  peer_sends(bad_hops);
  EXPECT_TRUE(peer_receives().empty());
  EXPECT_EQ(node_.counters().drops(NodeDropReason::kBadChecksum), 1U);
  EXPECT_EQ(node_.counters().drops(NodeDropReason::kInvalidNeighborDiscovery), 1U);
}

TEST_F(NodeTest, AnswersIpv4EchoAsScapyDoes) {
  static constexpr std::array<uint8_t, 32> kData = {'m', 'e', 't', 'a', 'r', 'o', 'c', 'e'};
  peer_sends(build_icmp_echo_frame(kMacA, kMacB, kIpA, kIpB, {true, 0x000a, 7, kData}));
  const auto replies = peer_receives();
  ASSERT_EQ(replies.size(), 1U);
  EXPECT_EQ(hex(replies[0]), scapy("echo_reply_v4"));
  EXPECT_EQ(node_.counters().echo_replies_sent, 1U);
}

TEST_F(NodeTest, AnswersIpv6EchoAsScapyDoes) {
  static constexpr std::array<uint8_t, 32> kData = {'m', 'e', 't', 'a', 'r', 'o', 'c', 'e'};
  peer_sends(
      build_icmp_echo_frame(kMacA, kMacB, kLinkLocalA, kLinkLocalB, {true, 0x000a, 9, kData}));
  const auto replies = peer_receives();
  ASSERT_EQ(replies.size(), 1U);
  EXPECT_EQ(hex(replies[0]), scapy("echo_reply_v6"));
}

TEST_F(NodeTest, EchoRequestsMatchScapy) {
  static constexpr std::array<uint8_t, 32> kData = {'m', 'e', 't', 'a', 'r', 'o', 'c', 'e'};
  EXPECT_EQ(hex(build_icmp_echo_frame(kMacA, kMacB, kIpA, kIpB, {true, 0x000a, 7, kData})),
            scapy("echo_request_v4"));
  EXPECT_EQ(
      hex(build_icmp_echo_frame(kMacA, kMacB, kLinkLocalA, kLinkLocalB, {true, 0x000a, 9, kData})),
      scapy("echo_request_v6"));
}

std::vector<uint8_t> roce_frame(const MacAddress& dst_mac, const Ipv4Address& dst,
                                uint16_t dport = kRoceV2UdpPort) {
  wire::RocePacket p;
  p.eth.src = kMacA;
  p.eth.dst = dst_mac;
  wire::Ipv4 ip;
  ip.src = kIpA;
  ip.dst = dst;
  p.ip = ip;
  p.udp.dport = dport;
  p.bth.opcode = wire::kOpRcSendOnly;
  p.bth.psn = 5;
  return wire::build_frame(p);
}

// Spec section 23: a trimming switch may cut a packet and leave its IP length as it was. The
// RoCE receiver judges such a frame (a trimmed packet), so the node hands it over; anything
// else cut short is malformed.
TEST_F(NodeTest, HandsRoceCutShortOfItsIpLengthToRoceAndDropsOtherCutFrames) {
  std::vector<std::vector<uint8_t>> delivered;
  node_.set_roce_handler(
      [&](std::span<const uint8_t> f, uint64_t) { delivered.emplace_back(f.begin(), f.end()); });
  const auto whole = roce_frame(kMacB, kIpB);
  const std::vector<uint8_t> cut(whole.begin(), whole.end() - 4);  // the ICRC gone
  peer_sends(cut);
  static constexpr std::array<uint8_t, 8> kData = {'c', 'u', 't', ' ', 's', 'h', 'o', 'r'};
  const auto echo = build_icmp_echo_frame(kMacA, kMacB, kIpA, kIpB, {true, 0x000a, 7, kData});
  peer_sends(std::vector<uint8_t>(echo.begin(), echo.end() - 4));
  ASSERT_EQ(delivered.size(), 1U);
  EXPECT_EQ(delivered[0], cut);
  EXPECT_EQ(node_.counters().drops(NodeDropReason::kMalformed), 1U);
  EXPECT_TRUE(peer_receives().empty()) << "a cut echo request is not answered";
}

TEST_F(NodeTest, DeliversRoceAndCountsEverythingElse) {
  std::vector<std::pair<std::vector<uint8_t>, uint64_t>> delivered;
  peer_sends(roce_frame(kMacB, kIpB));  // before a handler exists
  node_.set_roce_handler([&](std::span<const uint8_t> f, uint64_t t) {
    delivered.emplace_back(std::vector<uint8_t>(f.begin(), f.end()), t);
  });
  clock_.set(777);
  const auto good = roce_frame(kMacB, kIpB);
  peer_sends(good);
  peer_sends(roce_frame(kMacB, kIpB, 4792));
  peer_sends(roce_frame(kMacA, kIpB));                                // another MAC
  peer_sends(roce_frame(kMacB, Ipv4Address{{198, 18, 0, 3}}));        // another IP
  peer_sends(std::vector<uint8_t>(good.begin(), good.begin() + 20));  // truncated
  auto other_type = good;
  other_type[12] = 0x88;  // ethertype 0x88b7
  peer_sends(other_type);
  ASSERT_EQ(delivered.size(), 1U);
  EXPECT_EQ(delivered[0].first, good);
  EXPECT_EQ(delivered[0].second, 777U);
  const NodeCounters& c = node_.counters();
  EXPECT_EQ(c.received, 7U);
  EXPECT_EQ(c.roce_delivered, 1U);
  EXPECT_EQ(c.drops(NodeDropReason::kNoRoceHandler), 1U);
  EXPECT_EQ(c.drops(NodeDropReason::kOtherUdpPort), 1U);
  EXPECT_EQ(c.drops(NodeDropReason::kNotForUs), 2U);
  EXPECT_EQ(c.drops(NodeDropReason::kMalformed), 1U);
  EXPECT_EQ(c.drops(NodeDropReason::kUnhandledEthertype), 1U);
  EXPECT_EQ(c.total_dropped(), 6U);
  EXPECT_EQ(node_drop_reason_name(NodeDropReason::kOtherUdpPort), "other udp port");
}

// A link that refuses every frame whose first byte is `refused`, and, when `one_at_a_time`,
// any burst of more than one frame (a DPDK port short of mbufs takes a burst all or nothing).
class RefusingLink final : public Link {
 public:
  RefusingLink(uint8_t refused, bool one_at_a_time)
      : refused_(refused), one_at_a_time_(one_at_a_time) {}
  size_t send_burst(std::span<const Frame> frames) override {
    if (one_at_a_time_ && frames.size() > 1) return 0;
    size_t n = 0;
    for (const Frame& f : frames) {
      if (f.bytes.at(0) == refused_) return n;
      sent.push_back(f.bytes);
      ++n;
    }
    return n;
  }
  size_t receive_burst(std::span<Frame>, uint64_t) override { return 0; }
  std::string name() const override { return "refusing"; }

  std::vector<std::vector<uint8_t>> sent;

 private:
  uint8_t refused_;
  bool one_at_a_time_;
};

TEST(Node, SendsABurstPastARefusedFrameAndLeavesTheBuffersForReuse) {
  VirtualClock clock;
  RefusingLink link(2, false);
  Node node(link, clock, {.mac = kMacB, .ipv4 = kIpB});
  std::vector<std::vector<uint8_t>> frames = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
  const uint8_t* first = frames[0].data();
  EXPECT_EQ(node.send_burst(frames), 3U);
  EXPECT_EQ(link.sent, (std::vector<std::vector<uint8_t>>{{1, 1}, {3, 3}, {4, 4}}));
  EXPECT_EQ(node.counters().sent, 3U);
  EXPECT_EQ(node.counters().send_failures, 1U);
  ASSERT_EQ(frames.size(), 4U);
  EXPECT_EQ(frames[0].data(), first);  // the caller's buffer, not a copy
  EXPECT_EQ(frames[3], (std::vector<uint8_t>{4, 4}));
}

TEST(Node, SendsFramesOneByOneWhenTheLinkRefusesTheWholeBurst) {
  VirtualClock clock;
  RefusingLink link(0, true);
  Node node(link, clock, {.mac = kMacB, .ipv4 = kIpB});
  std::vector<std::vector<uint8_t>> frames = {{1}, {2}, {3}};
  EXPECT_EQ(node.send_burst(frames), 3U);
  EXPECT_EQ(link.sent, frames);
  EXPECT_EQ(node.counters().send_failures, 0U);
}

TEST_F(NodeTest, PollHonoursItsBudget) {
  node_.set_roce_handler([](std::span<const uint8_t>, uint64_t) {});
  std::vector<Frame> frames(100, Frame{roce_frame(kMacB, kIpB), 0});
  pair_.a().send_burst(frames);
  EXPECT_EQ(node_.poll(70, 0), 70U);
  EXPECT_EQ(node_.poll(70, 0), 30U);
  EXPECT_EQ(node_.counters().roce_delivered, 100U);
}

TEST_F(NodeTest, ResolveOnAVirtualClockGivesUpAfterItsAttempts) {
  Node a(pair_.a(), clock_, {.mac = kMacA, .ipv4 = kIpA, .resolve_attempts = 3});
  const auto mac = a.resolve(Ipv4Address{{198, 18, 0, 77}});
  ASSERT_FALSE(mac);
  EXPECT_NE(mac.error().find("198.18.0.77: no ARP answer on memory:a after 3 attempts"),
            std::string::npos)
      << mac.error();
  EXPECT_EQ(a.counters().arp_requests_sent, 3U);
}

TEST_F(NodeTest, TwoNodesResolveEachOtherInASimulationLoop) {
  Node a(pair_.a(), clock_, {.mac = kMacA, .ipv4 = kIpA});
  ASSERT_TRUE(a.solicit(kIpB));
  ASSERT_TRUE(a.solicit(kLinkLocalB));
  node_.poll(16, 0);
  a.poll(16, 0);
  EXPECT_EQ(a.lookup(kIpB), kMacB);
  EXPECT_EQ(a.lookup(kLinkLocalB), kMacB);
  EXPECT_EQ(a.lookup(ipv4_mapped(kIpB)), kMacB);  // a GID resolves through ARP's cache
  EXPECT_EQ(node_.lookup(kIpA), kMacA);
}

TEST(Node, ResolvesAndPingsAcrossThreadsOnTheSystemClock) {
  SystemClock clock;
  MemoryLinkPair pair(clock, {.latency_ns = 10'000});
  Node a(pair.a(), clock, {.mac = kMacA, .ipv4 = kIpA});
  Node b(pair.b(), clock, {.mac = kMacB, .ipv4 = kIpB});
  std::atomic<bool> stop = false;
  std::thread responder([&] {
    while (!stop) b.poll(32, 1'000'000);
  });
  const auto mac = a.resolve(kIpB);
  const auto rtt4 = a.ping(kIpB, 1, 1'000'000'000);
  const auto rtt6 = a.ping(kLinkLocalB, 2, 1'000'000'000);
  stop = true;
  responder.join();
  ASSERT_TRUE(mac) << mac.error();
  EXPECT_EQ(*mac, kMacB);
  ASSERT_TRUE(rtt4) << rtt4.error();
  EXPECT_GE(*rtt4, 20'000U);  // two one-way latencies
  ASSERT_TRUE(rtt6) << rtt6.error();
  EXPECT_EQ(b.counters().echo_replies_sent, 2U);
  EXPECT_EQ(a.counters().echo_replies_received, 2U);
}

}  // namespace
}  // namespace mr::io
