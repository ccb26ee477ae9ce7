// Packets per second of DpdkLink on a veth pair through net_af_packet devices, beside
// dpdk-testpmd on the same pair and the same devices in the same run (txonly, rxonly and io
// forwarding), and beside libpcap (PcapLink) and a bare AF_PACKET socket. 64-byte frames,
// bursts of 32. Each figure is the median of one-second samples; each is measured
// --repetitions times, alternating, and the table gives the median with min and max.
//
// Placement on a 2-CPU machine, the same for every contender: the measured sender,
// receiver or forwarder runs on CPU 0 (our thread pinned there; testpmd's forwarding lcore
// there, its main lcore, mostly asleep, on CPU 1); the traffic generator of the receive and
// forwarding rows, testpmd txonly on the other end, forwards on CPU 1. In the transmit rows
// nobody reads the other end: the kernel drops the frames there.
//
// Run as root: bazel run -c opt //reference/io/dpdk:dpdk_link_benchmark -- --seconds 4
// Prints a Markdown table, then one line per mode with the ratio DpdkLink / testpmd
// (issue 24's target: at least 0.9). With --json FILE, every row's median, min and max there
// too (`./metaroce bench dpdk` reads it into the benchmark table).
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "reference/io/dpdk/af_packet_device.h"
#include "reference/io/dpdk/dpdk_eal.h"
#include "reference/io/dpdk/namespaced_dpdk_link.h"
#include "reference/io/dpdk/testpmd.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/veth_pair.h"

namespace mr::io::dpdk {
namespace {

constexpr size_t kBurst = 32;
constexpr size_t kFrameBytes = 64;
constexpr unsigned kMeasuredCpu = 0;
constexpr unsigned kGeneratorCpu = 1;

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

std::vector<uint8_t> frame_bytes() {
  std::vector<uint8_t> f(kFrameBytes, 0x5a);
  const uint8_t header[14] = {2, 0, 0, 0, 0, 0x0b, 2, 0, 0, 0, 0, 0x0a, 0x88, 0xb5};
  std::memcpy(f.data(), header, sizeof header);
  return f;
}

// Pins the calling thread to one CPU while it lives (threads it starts meanwhile inherit).
class PinnedToCpu {
 public:
  explicit PinnedToCpu(unsigned cpu) {
    pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  }
  PinnedToCpu(const PinnedToCpu&) = delete;
  PinnedToCpu& operator=(const PinnedToCpu&) = delete;
  ~PinnedToCpu() { pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_); }

 private:
  cpu_set_t saved_{};
};

// Calls step (which returns the frames it moved) for `seconds`, on the measured CPU; one
// rate per second.
std::vector<double> per_second(unsigned seconds, const std::function<size_t()>& step) {
  const PinnedToCpu pinned(kMeasuredCpu);
  std::vector<double> rates;
  uint64_t window_start = monotonic_ns();
  uint64_t frames = 0;
  while (rates.size() < seconds) {
    frames += step();
    const uint64_t now = monotonic_ns();
    if (now - window_start >= 1'000'000'000ULL) {
      rates.push_back(static_cast<double>(frames) * 1e9 / static_cast<double>(now - window_start));
      frames = 0;
      window_start = now;
    }
  }
  return rates;
}

// Waits (at most 15 s) until step has moved a frame: the generator has started.
bool wait_for_traffic(const std::function<size_t()>& step) {
  const uint64_t end = monotonic_ns() + 15'000'000'000ULL;
  while (monotonic_ns() < end) {
    if (step() > 0) return true;
  }
  return false;
}

// A bare AF_PACKET socket bound to one interface of a namespace.
class RawSocket {
 public:
  static std::optional<RawSocket> open(const NetworkNamespace& ns, const std::string& interface) {
    int fd = -1;
    auto ran = ns.run_inside([&] {
      fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
      if (fd < 0) return;
      sockaddr_ll address{};
      address.sll_family = AF_PACKET;
      address.sll_protocol = htons(ETH_P_ALL);
      address.sll_ifindex = static_cast<int>(if_nametoindex(interface.c_str()));
      if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        fd = -1;
      }
    });
    if (!ran || fd < 0) return std::nullopt;
    return RawSocket(fd);
  }
  RawSocket(RawSocket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RawSocket& operator=(RawSocket&&) = delete;
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  explicit RawSocket(int fd) : fd_(fd) {}
  int fd_;
};

struct Row {
  std::string mode;       // txonly, rxonly, io
  std::string contender;  // DpdkLink, testpmd, libpcap, raw AF_PACKET
};

class Benchmark {
 public:
  // `frames`: the slots of each net_af_packet ring, for DpdkLink and testpmd alike.
  Benchmark(VethPair& veth, std::shared_ptr<DpdkEal> eal, unsigned seconds, unsigned frames)
      : veth_(veth),
        eal_(std::move(eal)),
        seconds_(seconds),
        device_a_(af_packet_device(0, VethPair::kInterfaceA, {.frames = frames})),
        device_b_(af_packet_device(1, VethPair::kInterfaceB, {.frames = frames})),
        burst_(kBurst, Frame{frame_bytes(), 0}),
        in_(kBurst) {}

  // One repetition of every row; adds a rate to each.
  void run_once() {
    add({"txonly", "DpdkLink"}, dpdk_tx());
    add({"txonly", "testpmd"}, testpmd_alone("txonly"));
    add({"txonly", "libpcap"}, pcap_tx());
    add({"txonly", "raw AF_PACKET"}, raw_tx());
    add({"rxonly", "DpdkLink"}, with_generator("rxonly", [&] { return dpdk_rx(false); }));
    add({"rxonly", "testpmd"}, testpmd_with_generator("rxonly"));
    add({"rxonly", "libpcap"}, with_generator("rxonly", [&] { return pcap_rx(); }));
    add({"rxonly", "raw AF_PACKET"}, with_generator("rxonly", [&] { return raw_rx(); }));
    add({"io", "DpdkLink"}, with_generator("io", [&] { return dpdk_rx(true); }));
    add({"io", "testpmd"}, testpmd_with_generator("io"));
  }

  void print() const {
    std::printf("| mode | contender | Mpps (median) | min | max | / testpmd |\n");
    std::printf("|---|---|---:|---:|---:|---:|\n");
    for (const char* mode : {"txonly", "rxonly", "io"}) {
      const double testpmd = median_of(mode, "testpmd");
      for (const char* who : {"DpdkLink", "testpmd", "libpcap", "raw AF_PACKET"}) {
        const std::vector<double>& rates = rates_of(mode, who);
        if (rates.empty()) continue;
        const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
        const double m = median(rates);
        char ratio[16] = "-";
        if (testpmd > 0) std::snprintf(ratio, sizeof ratio, "%.2f", m / testpmd);
        std::printf("| %s | %s | %.3f | %.3f | %.3f | %s |\n", mode, who, m / 1e6, *lo / 1e6,
                    *hi / 1e6, ratio);
      }
    }
    for (const char* mode : {"txonly", "rxonly", "io"}) {
      const double ours = median_of(mode, "DpdkLink");
      const double testpmd = median_of(mode, "testpmd");
      if (ours <= 0 || testpmd <= 0) continue;
      std::printf("%s: DpdkLink %.0f pps, testpmd %.0f pps, ratio %.2f (target >= 0.90)\n", mode,
                  ours, testpmd, ours / testpmd);
    }
    for (const auto& [mode, offered] : offered_) {
      std::printf("%s: offered load (testpmd txonly on the other end) %.0f pps median\n",
                  mode.c_str(), median(offered));
    }
  }

  // Every row: {"mode", "contender", "pps_median", "pps_min", "pps_max"}.
  nlohmann::json to_json() const {
    nlohmann::json rows = nlohmann::json::array();
    for (const char* mode : {"txonly", "rxonly", "io"}) {
      for (const char* who : {"DpdkLink", "testpmd", "libpcap", "raw AF_PACKET"}) {
        const std::vector<double>& rates = rates_of(mode, who);
        if (rates.empty()) continue;
        const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
        rows.push_back({{"mode", mode},
                        {"contender", who},
                        {"pps_median", median(rates)},
                        {"pps_min", *lo},
                        {"pps_max", *hi}});
      }
    }
    return {{"area", "dpdk"}, {"frame_bytes", kFrameBytes}, {"burst", kBurst}, {"rows", rows}};
  }

 private:
  const std::vector<double>& rates_of(const std::string& mode, const std::string& who) const {
    static const std::vector<double> kNone;
    const auto it = rates_.find(key(mode, who));
    return it == rates_.end() ? kNone : it->second;
  }
  double median_of(const std::string& mode, const std::string& who) const {
    return median(rates_of(mode, who));
  }
  static std::string key(const std::string& mode, const std::string& who) {
    std::string k = mode;
    k += '/';
    k += who;
    return k;
  }

  void add(const Row& row, double rate) {
    std::fprintf(stderr, "  %-7s %-14s %.0f pps\n", row.mode.c_str(), row.contender.c_str(), rate);
    if (rate > 0) rates_[key(row.mode, row.contender)].push_back(rate);
  }

  double dpdk_tx() {
    auto link = attach_dpdk_link_in(veth_.a(), eal_, device_a_.devargs,
                                    {.mbuf_data_bytes = device_a_.mbuf_data_bytes});
    if (!link) return fail(link.error());
    return median(per_second(seconds_, [&] { return link->send_burst(burst_); }));
  }

  // Receives on B (io: and sends each burst back out).
  double dpdk_rx(bool forward) {
    auto link = attach_dpdk_link_in(veth_.b(), eal_, device_b_.devargs,
                                    {.mbuf_data_bytes = device_b_.mbuf_data_bytes});
    if (!link) return fail(link.error());
    const auto step = [&]() -> size_t {
      const size_t n = link->receive_burst(in_, 10'000'000);
      if (!forward || n == 0) return n;
      size_t sent = 0;
      for (int tries = 0; sent < n && tries < 100; ++tries)
        sent += link->send_burst(std::span(in_).subspan(sent, n - sent));
      return sent;
    };
    if (!wait_for_traffic(step)) return fail("DpdkLink: no traffic from the generator");
    return median(per_second(seconds_, step));
  }

  double pcap_tx() {
    auto link = open_pcap_link_in(veth_.a(), VethPair::kInterfaceA, {.filter = ""});
    if (!link) return fail(link.error());
    return median(per_second(seconds_, [&] { return link->send_burst(burst_); }));
  }

  double pcap_rx() {
    auto link =
        open_pcap_link_in(veth_.b(), VethPair::kInterfaceB, {.filter = "", .snap_length = 0});
    if (!link) return fail(link.error());
    const auto step = [&] { return link->receive_burst(in_, 10'000'000); };
    if (!wait_for_traffic(step)) return fail("libpcap: no traffic from the generator");
    return median(per_second(seconds_, step));
  }

  double raw_tx() {
    auto raw = RawSocket::open(veth_.a(), VethPair::kInterfaceA);
    if (!raw) return fail("cannot open an AF_PACKET socket");
    const std::vector<uint8_t> frame = frame_bytes();
    return median(per_second(seconds_, [&] {
      size_t sent = 0;
      for (size_t i = 0; i < kBurst; ++i) {
        if (::send(raw->fd(), frame.data(), frame.size(), 0) > 0) ++sent;
      }
      return sent;
    }));
  }

  double raw_rx() {
    auto raw = RawSocket::open(veth_.b(), VethPair::kInterfaceB);
    if (!raw) return fail("cannot open an AF_PACKET socket");
    std::vector<uint8_t> buffer(2048);
    const auto step = [&]() -> size_t {
      size_t got = 0;
      while (got<kBurst&& ::recv(raw->fd(), buffer.data(), buffer.size(), MSG_DONTWAIT)> 0) ++got;
      if (got == 0) {
        pollfd pfd{raw->fd(), POLLIN, 0};
        ::poll(&pfd, 1, 10);
      }
      return got;
    };
    if (!wait_for_traffic(step)) return fail("raw AF_PACKET: no traffic from the generator");
    return median(per_second(seconds_, step));
  }

  double testpmd_alone(const std::string& mode) {
    auto run = run_testpmd(veth_.a(), {.devargs = device_a_.devargs,
                                       .mode = mode,
                                       .forwarding_cpu = kMeasuredCpu,
                                       .seconds = seconds_ + 3});
    if (!run) return fail(run.error());
    return median(steady_samples(run->tx_pps));
  }

  // testpmd txonly on A from CPU 1 while `measure` runs.
  double with_generator(const std::string& mode, const std::function<double()>& measure) {
    std::optional<Expected<TestpmdRun, std::string>> generator;
    std::thread thread([&] {
      generator.emplace(run_testpmd(veth_.a(), {.devargs = device_a_.devargs,
                                                .mode = "txonly",
                                                .forwarding_cpu = kGeneratorCpu,
                                                .seconds = seconds_ + 5}));
    });
    const double rate = measure();
    thread.join();
    if (generator && *generator) {
      offered_[mode].push_back(median(steady_samples((*generator)->tx_pps)));
    } else if (generator) {
      return fail(generator->error());
    }
    return rate;
  }

  double testpmd_with_generator(const std::string& mode) {
    return with_generator(mode, [&] {
      auto run = run_testpmd(veth_.b(), {.devargs = device_b_.devargs,
                                         .mode = mode,
                                         .forwarding_cpu = kMeasuredCpu,
                                         .seconds = seconds_ + 5});
      if (!run) return fail(run.error());
      return median(steady_samples(mode == "io" ? run->tx_pps : run->rx_pps));
    });
  }

  static double fail(const std::string& why) {
    std::fprintf(stderr, "dpdk_link_benchmark: %s\n", why.c_str());
    return 0;
  }

  VethPair& veth_;
  std::shared_ptr<DpdkEal> eal_;
  unsigned seconds_;
  AfPacketDevice device_a_;
  AfPacketDevice device_b_;
  std::vector<Frame> burst_;
  std::vector<Frame> in_;
  std::map<std::string, std::vector<double>> rates_;
  std::map<std::string, std::vector<double>> offered_;
};

unsigned flag(int argc, char** argv, const std::string& name, unsigned fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return static_cast<unsigned>(std::stoul(argv[i + 1]));
  }
  return fallback;
}

}  // namespace
}  // namespace mr::io::dpdk

int main(int argc, char** argv) {
  using namespace mr::io;        // NOLINT(google-build-using-namespace): a main
  using namespace mr::io::dpdk;  // NOLINT(google-build-using-namespace)
  if (geteuid() != 0) {
    std::puts("dpdk_link_benchmark: SKIPPED: needs root (network namespaces, AF_PACKET)");
    return 0;
  }
  if (std::thread::hardware_concurrency() < 2) {
    std::puts(
        "dpdk_link_benchmark: SKIPPED: needs two CPUs (testpmd's main and forwarding lcores)");
    return 0;
  }
  const unsigned seconds = flag(argc, argv, "--seconds", 4);
  const unsigned repetitions = flag(argc, argv, "--repetitions", 3);
  const unsigned frames = flag(argc, argv, "--ring-frames", 1024);
  auto eal = DpdkEal::start();
  if (!eal) {
    std::fprintf(stderr, "dpdk_link_benchmark: %s\n", eal.error().c_str());
    return 1;
  }
  auto veth = VethPair::create({.kernel_ipv6 = false});
  if (!veth) {
    std::fprintf(stderr, "dpdk_link_benchmark: %s\n", veth.error().c_str());
    return 1;
  }
  std::printf("net_af_packet rings of %u frames; %u s per figure, %u repetitions\n", frames,
              seconds, repetitions);
  Benchmark benchmark(*veth, *eal, seconds, frames);
  for (unsigned r = 0; r < repetitions; ++r) {
    std::fprintf(stderr, "repetition %u of %u\n", r + 1, repetitions);
    benchmark.run_once();
  }
  benchmark.print();
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) != "--json") continue;
    std::ofstream out(argv[i + 1]);
    out << benchmark.to_json().dump(1) << "\n";
    out.close();  // a write error can show only when the file is closed
    if (!out) {
      std::fprintf(stderr, "dpdk_link_benchmark: cannot write %s\n", argv[i + 1]);
      return 1;
    }
  }
  return 0;
}
