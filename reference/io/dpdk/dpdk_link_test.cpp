// DpdkLink over a net_af_packet device on one end of a veth pair between two namespaces,
// PcapLink (libpcap) on the other end as the independent peer: frames both ways byte for
// byte, a burst of 1,000 complete and in order, the receive timeout, the recording of a
// capture, no heap allocation per frame, and the errors of a device that cannot open.
#include "reference/io/dpdk/dpdk_link.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <thread>

#include "reference/io/capture_reader.h"
#include "reference/io/command.h"
#include "reference/io/dpdk/af_packet_device.h"
#include "reference/io/dpdk/namespaced_dpdk_link.h"
#include "reference/io/heap_allocation_counter.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/recording_link.h"
#include "reference/io/veth_pair.h"

namespace mr::io::dpdk {
namespace {

constexpr uint16_t kTestEtherType = 0x88b5;  // IEEE 802 local experimental
constexpr unsigned kJumboFrame = 9014;       // a 9000-byte MTU's frame

uint64_t wall_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// A frame of `length` bytes whose bytes all depend on `seq`: dst 02::0b, src 02::0a, the
// test EtherType, the sequence number, then a pattern.
std::vector<uint8_t> test_frame(size_t length, uint32_t seq) {
  std::vector<uint8_t> f(length);
  const uint8_t header[14] = {2, 0, 0, 0, 0, 0x0b, 2, 0, 0, 0, 0, 0x0a, 0x88, 0xb5};
  std::copy(std::begin(header), std::end(header), f.begin());
  for (size_t i = 0; i < 4; ++i) f[14 + i] = static_cast<uint8_t>(seq >> (24 - 8 * i));
  for (size_t i = 18; i < length; ++i) f[i] = static_cast<uint8_t>(seq * 31 + i * 7);
  return f;
}

bool is_test_frame(const Frame& f) {
  return f.bytes.size() >= 14 && f.bytes[12] == (kTestEtherType >> 8) &&
         f.bytes[13] == (kTestEtherType & 0xff);
}

// Receives until `count` test frames arrived or `timeout_ns` passed.
std::vector<Frame> receive_n(Link& link, size_t count, uint64_t timeout_ns = 2'000'000'000) {
  std::vector<Frame> got;
  std::vector<Frame> burst(64);
  const uint64_t end = monotonic_ns() + timeout_ns;
  while (got.size() < count && monotonic_ns() < end) {
    const size_t n = link.receive_burst(burst, 10'000'000);
    for (size_t i = 0; i < n; ++i) {
      if (is_test_frame(burst[i])) got.push_back(burst[i]);
    }
  }
  return got;
}

// Sends every frame, retrying what a full ring did not take, for at most a second.
size_t send_all(Link& link, std::span<const Frame> frames) {
  size_t sent = 0;
  const uint64_t end = monotonic_ns() + 1'000'000'000;
  while (sent < frames.size() && monotonic_ns() < end)
    sent += link.send_burst(frames.subspan(sent));
  return sent;
}

std::string tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// One EAL for the whole test process (it starts once per process).
const Expected<std::shared_ptr<DpdkEal>, std::string>& eal() {
  static const auto started = DpdkEal::start();
  return started;
}

class DpdkLinkOverVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: needs root to create network namespaces";
    if (!run_command({"ip", "netns", "list"})) GTEST_SKIP() << "SKIPPED: no usable `ip netns`";
    ASSERT_TRUE(eal()) << eal().error();
    auto veth = VethPair::create({.mtu = 9000, .kernel_ipv6 = false});
    ASSERT_TRUE(veth) << veth.error();
    veth_.emplace(std::move(*veth));
    auto pcap = open_pcap_link_in(veth_->b(), VethPair::kInterfaceB,
                                  {.filter = "", .buffer_bytes = 32 << 20, .snap_length = 0});
    ASSERT_TRUE(pcap) << pcap.error();
    pcap_.emplace(std::move(*pcap));
    attach_dpdk(1);
  }

  void attach_dpdk(uint16_t queues) {
    dpdk_.reset();
    const AfPacketDevice dev = af_packet_device(0, VethPair::kInterfaceA,
                                                {.max_frame_bytes = kJumboFrame, .queues = queues});
    auto dpdk = attach_dpdk_link_in(veth_->a(), *eal(), dev.devargs,
                                    {.queues = queues, .mbuf_data_bytes = dev.mbuf_data_bytes});
    ASSERT_TRUE(dpdk) << dpdk.error();
    dpdk_.emplace(std::move(*dpdk));
  }

  // Destroyed in reverse: the links before the namespaces their interfaces live in.
  std::optional<VethPair> veth_;
  std::optional<PcapLink> pcap_;
  std::optional<DpdkLink> dpdk_;
};

const std::vector<size_t> kSizes = {60,   61,   64,   100,  128,  256,  512,  1000, 1024,
                                    1500, 1514, 1518, 2048, 4096, 8000, 8999, 9000};

TEST_F(DpdkLinkOverVeth, FramesOf60To9000BytesCrossBothWaysByteForByte) {
  std::vector<Frame> frames;
  for (size_t i = 0; i < kSizes.size(); ++i) {
    frames.push_back({test_frame(kSizes[i], static_cast<uint32_t>(i)), 0});
  }
  ASSERT_EQ(send_all(*dpdk_, frames), frames.size());
  const auto at_pcap = receive_n(*pcap_, frames.size());
  ASSERT_EQ(at_pcap.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(at_pcap[i].bytes, frames[i].bytes) << kSizes[i] << " bytes, DPDK to libpcap";
  }

  const uint64_t before = wall_ns();
  ASSERT_EQ(send_all(*pcap_, frames), frames.size()) << pcap_->last_send_error();
  const auto at_dpdk = receive_n(*dpdk_, frames.size());
  const uint64_t after = wall_ns();
  ASSERT_EQ(at_dpdk.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(at_dpdk[i].bytes, frames[i].bytes) << kSizes[i] << " bytes, libpcap to DPDK";
    EXPECT_GE(at_dpdk[i].timestamp_ns, before);  // the wall clock, as PcapLink stamps
    EXPECT_LE(at_dpdk[i].timestamp_ns, after);
  }
  auto stats = dpdk_->stats();
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_EQ(stats->frames_sent, frames.size());
  EXPECT_EQ(stats->frames_received, frames.size());
  EXPECT_EQ(stats->port_tx_errors, 0U);  // net_af_packet counts a frame it dropped here
  EXPECT_EQ(dpdk_->name(), "dpdk:net_af_packet0");
}

TEST_F(DpdkLinkOverVeth, ABurstOf1000FramesArrivesCompleteAndInOrder) {
  std::vector<Frame> frames;
  for (uint32_t i = 0; i < 1000; ++i) frames.push_back({test_frame(60 + i % 1400, i), 0});
  ASSERT_EQ(dpdk_->send_burst(frames), frames.size());  // the TX ring holds 1,024
  const auto at_pcap = receive_n(*pcap_, frames.size());
  ASSERT_EQ(at_pcap.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) ASSERT_EQ(at_pcap[i].bytes, frames[i].bytes) << i;
  auto pcap_stats = pcap_->stats();
  ASSERT_TRUE(pcap_stats) << pcap_stats.error();
  EXPECT_EQ(pcap_stats->dropped, 0U);

  ASSERT_EQ(send_all(*pcap_, frames), frames.size()) << pcap_->last_send_error();
  const auto at_dpdk = receive_n(*dpdk_, frames.size());
  ASSERT_EQ(at_dpdk.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) ASSERT_EQ(at_dpdk[i].bytes, frames[i].bytes) << i;
  auto stats = dpdk_->stats();
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_EQ(stats->tx_not_accepted, 0U);
  EXPECT_EQ(stats->port_tx_packets, 1000U);
  EXPECT_EQ(stats->port_rx_packets, 1000U);
  EXPECT_EQ(stats->port_rx_nombuf, 0U);
  EXPECT_EQ(stats->port_rx_missed, 0U);
  EXPECT_EQ(dpdk_->pool().available(), dpdk_->pool().count());  // every mbuf went back
}

TEST_F(DpdkLinkOverVeth, TheReceiveTimeoutIsHonoured) {
  std::vector<Frame> burst(8);
  const uint64_t start = monotonic_ns();
  EXPECT_EQ(dpdk_->receive_burst(burst, 50'000'000), 0U);
  const uint64_t waited = monotonic_ns() - start;
  EXPECT_GE(waited, 50'000'000U);
  EXPECT_LT(waited, 250'000'000U);
  const uint64_t poll_start = monotonic_ns();
  EXPECT_EQ(dpdk_->receive_burst(burst, 0), 0U);  // a poll
  EXPECT_LT(monotonic_ns() - poll_start, 5'000'000U);
}

TEST_F(DpdkLinkOverVeth, ReceiveWakesWhenAFrameArrives) {
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const Frame f{test_frame(100, 7), 0};
    pcap_->send_burst(std::span(&f, 1));
  });
  std::vector<Frame> burst(4);
  const uint64_t start = monotonic_ns();
  const size_t n = dpdk_->receive_burst(burst, 5'000'000'000ULL);
  const uint64_t waited = monotonic_ns() - start;
  sender.join();
  EXPECT_EQ(n, 1U);
  EXPECT_LT(waited, 1'000'000'000U);
}

TEST_F(DpdkLinkOverVeth, ARecordingLinkCapturesEveryFrameWithItsTime) {
  const std::string path = tmp("dpdk_recording.pcapng");
  constexpr uint32_t kFrames = 300;
  std::vector<Frame> out;
  std::vector<Frame> back;
  for (uint32_t i = 0; i < kFrames; ++i) {
    out.push_back({test_frame(60 + i * 29 % 8940, i), 0});
    back.push_back({test_frame(60 + i * 31 % 8940, 100'000 + i), 0});
  }
  const uint64_t start = wall_ns();
  {
    auto rec =
        RecordingLink::create(path, {.sent = "dpdk->pcap", .received = "pcap->dpdk"}, &*dpdk_);
    ASSERT_TRUE(rec) << rec.error();
    for (size_t sent = 0; sent < kFrames; sent += 50) {  // paced: the recording keeps up
      ASSERT_EQ(send_all(**rec, std::span(out).subspan(sent, 50)), 50U);
      ASSERT_EQ(send_all(*pcap_, std::span(back).subspan(sent, 50)), 50U);
    }
    EXPECT_EQ(receive_n(*pcap_, kFrames).size(), kFrames);
    EXPECT_EQ(receive_n(**rec, kFrames).size(), kFrames);
    ASSERT_TRUE((*rec)->close());
  }
  const uint64_t end = wall_ns();
  auto reader = CaptureReader::open(path);
  ASSERT_TRUE(reader) << reader.error().to_string();
  std::vector<std::vector<uint8_t>> sent_frames;
  std::vector<std::vector<uint8_t>> received_frames;
  uint64_t previous = 0;
  for (int guard = 0; guard < 10 * static_cast<int>(kFrames); ++guard) {
    auto f = reader->next();
    ASSERT_TRUE(f) << f.error().to_string();
    if (!*f) break;
    const CapturedFrame& frame = **f;
    EXPECT_GE(frame.timestamp_ns, start);
    EXPECT_LE(frame.timestamp_ns, end);
    EXPECT_GE(frame.timestamp_ns, previous);  // in time order
    previous = frame.timestamp_ns;
    EXPECT_EQ(frame.original_length, frame.data.size());  // whole frames, none cut
    auto& into = frame.interface == 0 ? sent_frames : received_frames;
    into.emplace_back(frame.data.begin(), frame.data.end());
  }
  ASSERT_EQ(sent_frames.size(), kFrames);
  ASSERT_EQ(received_frames.size(), kFrames);
  for (uint32_t i = 0; i < kFrames; ++i) {
    EXPECT_EQ(sent_frames[i], out[i].bytes) << i;
    EXPECT_EQ(received_frames[i], back[i].bytes) << i;
  }
}

TEST_F(DpdkLinkOverVeth, NoHeapAllocationPerFrameOnceWarm) {
  std::vector<Frame> frames;
  for (uint32_t i = 0; i < 32; ++i) frames.push_back({test_frame(60 + i * 40, i), 0});
  std::vector<Frame> in(32);
  std::vector<Frame> at_pcap(32);
  uint64_t received = 0;
  uint64_t hot_path_allocations = 0;
  for (int round = 0; round < 101; ++round) {
    // This thread's allocations inside the two hot paths only (not in the pcap side's).
    uint64_t allocations = thread_heap_allocations();
    const size_t sent = dpdk_->send_burst(frames);
    allocations = thread_heap_allocations() - allocations;
    ASSERT_EQ(sent, frames.size());
    size_t got = 0;
    for (int tries = 0; got < frames.size() && tries < 1000; ++tries)
      got += pcap_->receive_burst(std::span(at_pcap).subspan(got), 10'000'000);
    ASSERT_EQ(got, frames.size());
    ASSERT_EQ(send_all(*pcap_, frames), frames.size());
    got = 0;
    const uint64_t before_receive = thread_heap_allocations();
    for (int tries = 0; got < frames.size() && tries < 1000; ++tries)
      got += dpdk_->receive_burst(std::span(in).subspan(got), 10'000'000);
    allocations += thread_heap_allocations() - before_receive;
    ASSERT_EQ(got, frames.size());
    for (size_t i = 0; i < got; ++i) ASSERT_EQ(in[i].bytes, frames[i].bytes);
    if (round > 0) {  // the first round grows the receive vectors
      hot_path_allocations += allocations;
      received += got;
    }
  }
  EXPECT_EQ(received, 100U * frames.size());
  EXPECT_EQ(hot_path_allocations, 0U) << "heap allocations in 100 rounds of send and receive";
}

TEST_F(DpdkLinkOverVeth, TwoQueuesCarryEveryFrame) {
  attach_dpdk(2);
  if (HasFatalFailure()) return;
  std::vector<Frame> frames;
  for (uint32_t i = 0; i < 200; ++i) frames.push_back({test_frame(128, i), 0});
  ASSERT_EQ(send_all(*pcap_, frames), frames.size()) << pcap_->last_send_error();
  const auto at_dpdk = receive_n(*dpdk_, frames.size());
  ASSERT_EQ(at_dpdk.size(), frames.size());
  std::set<std::vector<uint8_t>> expected;
  for (const auto& f : frames) expected.insert(f.bytes);
  for (const auto& f : at_dpdk) EXPECT_EQ(expected.count(f.bytes), 1U);
  ASSERT_EQ(send_all(*dpdk_, frames), frames.size());
  EXPECT_EQ(receive_n(*pcap_, frames.size()).size(), frames.size());
}

TEST_F(DpdkLinkOverVeth, AnAbsentInterfaceOrATooSmallMbufIsAClearError) {
  const AfPacketDevice absent = af_packet_device(1, "mrt-absent0");
  auto link = attach_dpdk_link_in(veth_->a(), *eal(), absent.devargs);
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().find("iface=mrt-absent0"), std::string::npos) << link.error();
  EXPECT_NE(link.error().find("SIOCGIFINDEX"), std::string::npos) << "the driver's reason";
  // net_af_packet refuses RX queues whose mbufs are smaller than its ring slots.
  const AfPacketDevice jumbo =
      af_packet_device(2, VethPair::kInterfaceA, {.max_frame_bytes = 9014});
  auto small = attach_dpdk_link_in(veth_->a(), *eal(), jumbo.devargs, {.mbuf_data_bytes = 2048});
  ASSERT_FALSE(small);
  EXPECT_NE(small.error().find("net_af_packet2: rte_eth_rx_queue_setup"), std::string::npos)
      << small.error();
  EXPECT_NE(small.error().find("9184 bytes will not fit in mbuf (2048 bytes)"), std::string::npos)
      << small.error();
}

}  // namespace
}  // namespace mr::io::dpdk
