// Frames per second through PcapLink over a veth pair between two namespaces, against
// the anchor of a bare AF_PACKET socket pair (no libpcap, one send()/recv() per frame) on
// the same veth in the same run. Each iteration sends a burst of RoCEv2 frames from one
// end and receives all of them at the other; a frame lost fails the run.
//
// Run as root: bazel run --config=bench //reference/io:link_benchmark
// The last line is the ratio PcapLink / raw (target: at least 0.70).
#include <benchmark/benchmark.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>

#include "reference/io/clock.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/veth_pair.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace mr::io {
namespace {

constexpr size_t kBurst = 32;
constexpr uint64_t kBurstTimeoutNs = 1'000'000'000;

std::vector<uint8_t> roce_frame() {
  static const std::vector<uint8_t> payload(64, 0x5a);
  wire::RocePacket p;
  p.eth.src = *wire::MacAddress::parse("02:00:00:00:00:0a");
  p.eth.dst = *wire::MacAddress::parse("02:00:00:00:00:0b");
  wire::Ipv4 ip;
  ip.src = {{198, 18, 0, 1}};
  ip.dst = {{198, 18, 0, 2}};
  p.ip = ip;
  p.bth.opcode = wire::kOpRcSendOnly;
  p.payload = payload;
  return wire::build_frame(p);
}

// The veth pair, made once for all benchmarks and deleted at exit.
VethPair* topology() {
  static std::optional<VethPair> veth = [] {
    std::optional<VethPair> v;
    if (geteuid() != 0) return v;
    if (auto made = VethPair::create({.kernel_ipv6 = false})) {
      v.emplace(std::move(*made));
    } else {
      std::fprintf(stderr, "link_benchmark: %s\n", made.error().c_str());
    }
    return v;
  }();
  return veth ? &*veth : nullptr;
}

// A bare AF_PACKET socket bound to one interface of a namespace.
class RawSocket {
 public:
  static std::optional<RawSocket> open(const NetworkNamespace& ns, const std::string& interface) {
    int fd = -1;
    auto ran = ns.run_inside([&] {
      fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
      if (fd < 0) return;
      sockaddr_ll addr{};
      addr.sll_family = AF_PACKET;
      addr.sll_protocol = htons(ETH_P_ALL);
      addr.sll_ifindex = static_cast<int>(if_nametoindex(interface.c_str()));
      if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        close(fd);
        fd = -1;
      }
    });
    if (!ran || fd < 0) return std::nullopt;
    return RawSocket(fd);
  }
  RawSocket(RawSocket&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RawSocket& operator=(RawSocket&&) = delete;
  ~RawSocket() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }

 private:
  explicit RawSocket(int fd) : fd_(fd) {}
  int fd_;
};

void BM_RawAfPacket(benchmark::State& state) {
  VethPair* veth = topology();
  if (!veth) return state.SkipWithError("needs root to create a veth pair in namespaces");
  auto tx = RawSocket::open(veth->a(), VethPair::kInterfaceA);
  auto rx = RawSocket::open(veth->b(), VethPair::kInterfaceB);
  if (!tx || !rx) return state.SkipWithError("cannot open AF_PACKET sockets");
  const std::vector<uint8_t> frame = roce_frame();
  std::vector<uint8_t> buffer(2048);
  uint64_t frames = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < kBurst; ++i) {
      if (send(tx->fd(), frame.data(), frame.size(), 0) < 0) {
        return state.SkipWithError("send failed");
      }
    }
    for (size_t got = 0; got < kBurst;) {
      pollfd pfd{rx->fd(), POLLIN, 0};
      if (poll(&pfd, 1, kBurstTimeoutNs / 1'000'000) <= 0) {
        return state.SkipWithError("raw: frames lost");
      }
      while (got < kBurst && recv(rx->fd(), buffer.data(), buffer.size(), MSG_DONTWAIT) > 0) {
        ++got;
      }
    }
    frames += kBurst;
  }
  state.counters["frames_per_s"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}

void BM_PcapLink(benchmark::State& state) {
  VethPair* veth = topology();
  if (!veth) return state.SkipWithError("needs root to create a veth pair in namespaces");
  auto tx = open_pcap_link_in(veth->a(), VethPair::kInterfaceA);
  auto rx = open_pcap_link_in(veth->b(), VethPair::kInterfaceB);
  if (!tx || !rx) return state.SkipWithError("cannot open the pcap links");
  const std::vector<Frame> burst(kBurst, Frame{roce_frame(), 0});
  std::vector<Frame> in(kBurst);
  uint64_t frames = 0;
  for (auto _ : state) {
    for (size_t sent = 0; sent < kBurst;) {
      const size_t n = tx->send_burst(std::span(burst).subspan(sent));
      if (n == 0) return state.SkipWithError(tx->last_send_error().c_str());
      sent += n;
    }
    for (size_t got = 0; got < kBurst;) {
      const size_t n = rx->receive_burst(std::span(in).subspan(got), kBurstTimeoutNs);
      if (n == 0) return state.SkipWithError("pcap: frames lost");
      got += n;
    }
    frames += kBurst;
  }
  state.counters["frames_per_s"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  if (auto stats = rx->stats(); stats && stats->dropped > 0) {
    state.SkipWithError("pcap: the ring dropped frames");
  }
}

BENCHMARK(BM_RawAfPacket)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_PcapLink)->UseRealTime()->MinTime(2.0);

// Prints the usual table, then remembers each benchmark's rate for the ratio.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const auto it = run.counters.find("frames_per_s");
      if (!run.error_occurred && it != run.counters.end()) {
        rates[run.run_name.function_name] = it->second.value;
      }
    }
  }
  std::map<std::string, double> rates;
};

}  // namespace
}  // namespace mr::io

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  mr::io::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto& r = reporter.rates;
  if (r.count("BM_RawAfPacket") && r.count("BM_PcapLink")) {
    const double raw = r.at("BM_RawAfPacket");
    const double pcap = r.at("BM_PcapLink");
    std::printf(
        "veth frames/s sent+received: PcapLink %.0f, raw AF_PACKET %.0f, ratio %.2f"
        " (target >= 0.70)\n",
        pcap, raw, pcap / raw);
  }
  benchmark::Shutdown();
  return 0;
}
