#include "reference/io/pcap_link.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "reference/io/clock.h"
#include "reference/io/command.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/veth_pair.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace mr::io {
namespace {

#define SKIP_UNLESS_ROOT()                                                       \
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces"; \
  if (!run_command({"ip", "netns", "list"})) GTEST_SKIP() << "no usable `ip netns` here"

std::vector<uint8_t> udp_frame(uint16_t dport, uint32_t psn) {
  wire::RocePacket p;
  p.eth.src = *wire::MacAddress::parse("02:00:00:00:00:0a");
  p.eth.dst = *wire::MacAddress::parse("02:00:00:00:00:0b");
  wire::Ipv4 ip;
  ip.src = {{198, 18, 0, 1}};
  ip.dst = {{198, 18, 0, 2}};
  p.ip = ip;
  p.udp.dport = dport;
  p.bth.opcode = wire::kOpRcSendOnly;
  p.bth.psn = psn;
  return wire::build_frame(p);
}

std::vector<Frame> receive_for(Link& link, uint64_t ns) {
  std::vector<Frame> got;
  std::vector<Frame> burst(32);
  const SystemClock clock;
  const uint64_t end = clock.now_ns() + ns;
  while (clock.now_ns() < end) {
    const size_t n = link.receive_burst(burst, 10'000'000);
    got.insert(got.end(), burst.begin(), burst.begin() + static_cast<long>(n));
  }
  return got;
}

TEST(PcapLink, ErrorNamesTheInterface) {
  auto link = PcapLink::open("mrt-absent0");
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().find("mrt-absent0"), std::string::npos) << link.error();
}

class PcapLinkOverVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_ROOT();
    auto veth = VethPair::create({.kernel_ipv6 = false});
    ASSERT_TRUE(veth) << veth.error();
    veth_.emplace(std::move(*veth));
    auto a = open_pcap_link_in(veth_->a(), VethPair::kInterfaceA);
    ASSERT_TRUE(a) << a.error();
    auto b = open_pcap_link_in(veth_->b(), VethPair::kInterfaceB);
    ASSERT_TRUE(b) << b.error();
    a_.emplace(std::move(*a));
    b_.emplace(std::move(*b));
  }

  std::optional<VethPair> veth_;
  std::optional<PcapLink> a_;
  std::optional<PcapLink> b_;
};

TEST_F(PcapLinkOverVeth, FramesCrossAndOwnFramesDoNotComeBack) {
  const SystemClock wall;
  std::vector<Frame> frames;
  for (uint32_t i = 0; i < 10; ++i) frames.push_back({udp_frame(4791, i), 0});
  frames.push_back({udp_frame(9, 99), 0});  // filtered out by the default BPF filter
  // The handles were opened on other threads, in other namespaces: used here, they still
  // work.
  ASSERT_EQ(a_->send_burst(frames), frames.size()) << a_->last_send_error();
  const auto got = receive_for(*b_, 200'000'000);
  ASSERT_EQ(got.size(), 10U);
  for (uint32_t i = 0; i < 10; ++i) {
    EXPECT_EQ(got[i].bytes, frames[i].bytes) << i;
    EXPECT_GT(got[i].timestamp_ns, 1'600'000'000'000'000'000ULL);  // epoch ns
  }
  EXPECT_TRUE(receive_for(*a_, 50'000'000).empty());  // PCAP_D_IN: not our own frames
  auto stats = b_->stats();
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_EQ(stats->received, 10U);
  EXPECT_EQ(stats->dropped, 0U);
  EXPECT_EQ(a_->name(), "pcap:mrt0");
  (void)wall;
}

TEST_F(PcapLinkOverVeth, ReceiveTimeoutIsBounded) {
  const SystemClock clock;
  std::vector<Frame> burst(4);
  const uint64_t start = clock.now_ns();
  EXPECT_EQ(b_->receive_burst(burst, 30'000'000), 0U);
  const uint64_t waited = clock.now_ns() - start;
  EXPECT_GE(waited, 30'000'000U);
  EXPECT_LT(waited, 1'000'000'000U);
  EXPECT_EQ(b_->receive_burst(burst, 0), 0U);  // poll
}

TEST_F(PcapLinkOverVeth, ReceiveWakesWhenAFrameArrives) {
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const Frame f{udp_frame(4791, 1), 0};
    a_->send_burst(std::span(&f, 1));
  });
  const SystemClock clock;
  std::vector<Frame> burst(4);
  const uint64_t start = clock.now_ns();
  const size_t n = b_->receive_burst(burst, 5'000'000'000ULL);
  const uint64_t waited = clock.now_ns() - start;
  sender.join();
  EXPECT_EQ(n, 1U);
  EXPECT_LT(waited, 2'000'000'000U);
}

}  // namespace
}  // namespace mr::io
