// Two namespaces joined by a veth, created by the test: the kernel pings a Node (an
// independent check of our ARP, ND and ICMP checksums), then two Nodes resolve and ping
// each other and exchange thousands of RoCEv2 frames through PcapLink, with no loss.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "reference/io/clock.h"
#include "reference/io/command.h"
#include "reference/io/kernel_ping.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/node.h"
#include "reference/io/veth_pair.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace mr::io {
namespace {

#define SKIP_UNLESS_ROOT()                                                       \
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces"; \
  if (!run_command({"ip", "netns", "list"})) GTEST_SKIP() << "no usable `ip netns` here"

const wire::MacAddress kMacA{{0x02, 0, 0, 0, 0, 0x0a}};
const wire::MacAddress kMacB{{0x02, 0, 0, 0, 0, 0x0b}};
const wire::Ipv4Address kIpA{{198, 18, 0, 1}};
const wire::Ipv4Address kIpB{{198, 18, 0, 2}};

// Polls a node on its own thread until destroyed.
class Responder {
 public:
  explicit Responder(Node& node)
      : thread_([this, &node] {
          while (!stop_) node.poll(64, 5'000'000);
        }) {}
  ~Responder() {
    stop_ = true;
    thread_.join();
  }
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

 private:
  std::atomic<bool> stop_ = false;
  std::thread thread_;
};

std::vector<uint8_t> roce_send(const wire::MacAddress& src_mac, const wire::MacAddress& dst_mac,
                               const wire::Ipv4Address& src, const wire::Ipv4Address& dst,
                               uint32_t psn) {
  static const std::vector<uint8_t> payload(256, 0x5a);
  wire::RocePacket p;
  p.eth.src = src_mac;
  p.eth.dst = dst_mac;
  wire::Ipv4 ip;
  ip.src = src;
  ip.dst = dst;
  p.ip = ip;
  p.bth.opcode = wire::kOpRcSendOnly;
  p.bth.dqpn = 0x11;
  p.bth.psn = psn;
  p.payload = payload;
  return wire::build_frame(p);
}

TEST(VethIntegration, KernelPingReachesANode) {
  SKIP_UNLESS_ROOT();
  {
    auto veth = VethPair::create({.kernel_ipv4_a = "198.18.0.1/24"});
    ASSERT_TRUE(veth) << veth.error();
    auto link = open_pcap_link_in(veth->b(), VethPair::kInterfaceB);
    ASSERT_TRUE(link) << link.error();
    const SystemClock clock;
    Node node(*link, clock, {.mac = kMacB, .ipv4 = kIpB});
    {
      Responder responder(node);
      const std::string link_local = node.ipv6_link_local().to_string();
      for (uint16_t seq = 1; seq <= 3; ++seq) {
        auto ping4 =
            kernel_ping(veth->a(), "198.18.0.2", VethPair::kInterfaceA, seq, 2'000'000'000);
        EXPECT_TRUE(ping4) << ping4.error();
        auto ping6 = kernel_ping(veth->a(), link_local, VethPair::kInterfaceA, seq, 2'000'000'000);
        EXPECT_TRUE(ping6) << ping6.error();
      }
    }
    EXPECT_GE(node.counters().arp_replies_sent, 1U);
    EXPECT_GE(node.counters().neighbor_advertisements_sent, 1U);
    EXPECT_EQ(node.counters().echo_replies_sent, 6U);
    EXPECT_EQ(node.counters().drops(NodeDropReason::kBadChecksum), 0U);
    // The kernel learnt our MAC from our ARP reply.
    auto neigh = veth->a().ip({"neigh", "show", "198.18.0.2"});
    ASSERT_TRUE(neigh) << neigh.error();
    EXPECT_NE(neigh->find("02:00:00:00:00:0b"), std::string::npos) << *neigh;
  }
  EXPECT_TRUE(no_namespaces_left_by_this_process());
}

TEST(VethIntegration, TwoNodesResolvePingAndExchangeRoceWithoutLoss) {
  SKIP_UNLESS_ROOT();
  {
    auto veth = VethPair::create({.kernel_ipv6 = false});
    ASSERT_TRUE(veth) << veth.error();
    auto link_a = open_pcap_link_in(veth->a(), VethPair::kInterfaceA);
    ASSERT_TRUE(link_a) << link_a.error();
    auto link_b = open_pcap_link_in(veth->b(), VethPair::kInterfaceB);
    ASSERT_TRUE(link_b) << link_b.error();
    const SystemClock clock;
    Node a(*link_a, clock, {.mac = kMacA, .ipv4 = kIpA});
    Node b(*link_b, clock, {.mac = kMacB, .ipv4 = kIpB});

    {
      Responder responder(b);
      auto mac4 = a.resolve(kIpB);
      ASSERT_TRUE(mac4) << mac4.error();
      EXPECT_EQ(*mac4, kMacB);
      auto mac6 = a.resolve(b.ipv6_link_local());
      ASSERT_TRUE(mac6) << mac6.error();
      EXPECT_EQ(*mac6, kMacB);
      for (uint16_t seq = 1; seq <= 5; ++seq) {
        auto rtt = a.ping(kIpB, seq, 1'000'000'000);
        EXPECT_TRUE(rtt) << rtt.error();
        auto rtt6 = a.ping(b.ipv6_link_local(), seq, 1'000'000'000);
        EXPECT_TRUE(rtt6) << rtt6.error();
      }
    }
    EXPECT_EQ(b.lookup(kIpA), kMacA);  // learnt from A's request

    // RoCE both ways, checked in order: one thread drives both nodes.
    constexpr uint32_t kFrames = 3000;
    uint32_t next_at_a = 0;
    uint32_t next_at_b = 0;
    uint64_t out_of_order = 0;
    auto expect_next = [&](uint32_t& next) {
      return [&](std::span<const uint8_t> frame, uint64_t) {
        auto d = wire::decode_frame(frame);
        const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
        if (!roce || !roce->icrc_ok() || roce->packet.bth.psn != next) ++out_of_order;
        ++next;
      };
    };
    a.set_roce_handler(expect_next(next_at_a));
    b.set_roce_handler(expect_next(next_at_b));
    uint32_t sent_by_a = 0;
    uint32_t sent_by_b = 0;
    const uint64_t deadline = clock.now_ns() + 20'000'000'000ULL;
    while ((next_at_a < kFrames || next_at_b < kFrames) && clock.now_ns() < deadline) {
      for (int i = 0; i < 16 && sent_by_a < kFrames; ++i) {
        if (!a.send(roce_send(kMacA, kMacB, kIpA, kIpB, sent_by_a))) break;
        ++sent_by_a;
      }
      for (int i = 0; i < 16 && sent_by_b < kFrames; ++i) {
        if (!b.send(roce_send(kMacB, kMacA, kIpB, kIpA, sent_by_b))) break;
        ++sent_by_b;
      }
      a.poll(64, 0);
      b.poll(64, sent_by_b == kFrames ? 1'000'000 : 0);
    }
    EXPECT_EQ(next_at_a, kFrames);
    EXPECT_EQ(next_at_b, kFrames);
    EXPECT_EQ(out_of_order, 0U);
    EXPECT_EQ(a.counters().roce_delivered, kFrames);
    EXPECT_EQ(b.counters().roce_delivered, kFrames);
    for (PcapLink* link : {&*link_a, &*link_b}) {
      auto stats = link->stats();
      ASSERT_TRUE(stats) << stats.error();
      EXPECT_EQ(stats->dropped, 0U) << link->name();
      EXPECT_EQ(stats->interface_dropped, 0U) << link->name();
    }
  }
  // Only this process's namespaces: other tests create and delete theirs concurrently.
  EXPECT_TRUE(no_namespaces_left_by_this_process());
}

}  // namespace
}  // namespace mr::io
