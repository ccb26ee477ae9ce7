#include "reference/io/pcap_link.h"

#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "reference/io/clock.h"

namespace mr::io {
namespace {

struct DispatchTarget {
  std::span<Frame> out;
  size_t count = 0;
};

void store_frame(u_char* user, const pcap_pkthdr* header, const u_char* bytes) {
  auto* target = reinterpret_cast<DispatchTarget*>(user);
  if (target->count >= target->out.size()) return;
  Frame& f = target->out[target->count++];
  f.bytes.assign(bytes, bytes + header->caplen);
  // Nanosecond precision was requested: tv_usec holds nanoseconds.
  f.timestamp_ns = static_cast<uint64_t>(header->ts.tv_sec) * 1'000'000'000ULL +
                   static_cast<uint64_t>(header->ts.tv_usec);
}

std::string failure(const std::string& interface, const std::string& step, pcap_t* p) {
  return interface + ": " + step + ": " + pcap_geterr(p);
}

// The interface's MTU, read in the calling thread's network namespace (sysfs would show the
// mount namespace's).
Expected<int, std::string> interface_mtu(const std::string& interface) {
  ifreq request{};
  if (interface.size() >= sizeof request.ifr_name)
    return Unexpected(interface + ": the interface name is too long");
  std::memcpy(request.ifr_name, interface.c_str(), interface.size());
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unexpected(interface + ": socket: " + std::strerror(errno));
  const int rc = ::ioctl(fd, SIOCGIFMTU, &request);
  const int error = errno;
  ::close(fd);
  if (rc != 0) return Unexpected(interface + ": SIOCGIFMTU: " + std::strerror(error));
  return request.ifr_mtu;
}

}  // namespace

Expected<PcapLink, std::string> PcapLink::open(const std::string& interface,
                                               const PcapLinkOptions& options) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* raw = pcap_create(interface.c_str(), errbuf);
  if (!raw) return Unexpected(interface + ": pcap_create: " + errbuf);
  PcapLink link(interface, raw);
  pcap_t* p = link.handle_.get();
  int snap_length = options.snap_length;
  if (snap_length == 0) {
    auto mtu = interface_mtu(interface);
    if (!mtu) return Unexpected(mtu.error());
    snap_length = *mtu + kEthernetAndTagBytes;
  }
  pcap_set_snaplen(p, snap_length);
  pcap_set_promisc(p, options.promiscuous ? 1 : 0);
  pcap_set_immediate_mode(p, 1);
  pcap_set_buffer_size(p, options.buffer_bytes);
  pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
  if (const int rc = pcap_activate(p); rc < 0) {
    return Unexpected(interface + ": pcap_activate: " + pcap_statustostr(rc) + ": " +
                      pcap_geterr(p));
  }
  if (pcap_datalink(p) != DLT_EN10MB) {
    return Unexpected(interface + ": not an Ethernet interface (link type " +
                      std::to_string(pcap_datalink(p)) + ")");
  }
  if (pcap_setnonblock(p, 1, errbuf) != 0) {
    return Unexpected(interface + ": pcap_setnonblock: " + errbuf);
  }
  if (pcap_setdirection(p, PCAP_D_IN) != 0) return Unexpected(failure(interface, "direction", p));
  if (!options.filter.empty()) {
    bpf_program program{};
    if (pcap_compile(p, &program, options.filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      return Unexpected(failure(interface, "filter \"" + options.filter + "\"", p));
    }
    const int rc = pcap_setfilter(p, &program);
    pcap_freecode(&program);
    if (rc != 0) return Unexpected(failure(interface, "setfilter", p));
  }
  link.fd_ = pcap_get_selectable_fd(p);
  if (link.fd_ < 0) return Unexpected(interface + ": no selectable descriptor");
  return link;
}

size_t PcapLink::send_burst(std::span<const Frame> frames) {
  size_t sent = 0;
  for (const Frame& f : frames) {
    const int n = pcap_inject(handle_.get(), f.bytes.data(), f.bytes.size());
    if (n != static_cast<int>(f.bytes.size())) {
      // Typically ENOBUFS/EAGAIN with a full send queue: the caller retries the rest.
      ++send_failures_;
      last_send_error_ = pcap_geterr(handle_.get());
      break;
    }
    ++sent;
  }
  return sent;
}

size_t PcapLink::dispatch(std::span<Frame> out) {
  DispatchTarget target{out};
  const int rc = pcap_dispatch(handle_.get(), static_cast<int>(out.size()), store_frame,
                               reinterpret_cast<u_char*>(&target));
  (void)rc;  // an error leaves count at what was stored; the burst path reports none
  return target.count;
}

size_t PcapLink::receive_burst(std::span<Frame> out, uint64_t timeout_ns) {
  if (out.empty()) return 0;
  size_t n = dispatch(out);
  if (n > 0 || timeout_ns == 0) return n;
  const SystemClock clock;
  const uint64_t deadline = clock.now_ns() + timeout_ns;
  while (true) {
    const uint64_t t = clock.now_ns();
    if (t >= deadline) return 0;
    const uint64_t left = deadline - t;
    const timespec wait{static_cast<time_t>(left / 1'000'000'000ULL),
                        static_cast<long>(left % 1'000'000'000ULL)};
    pollfd pfd{fd_, POLLIN, 0};
    if (ppoll(&pfd, 1, &wait, nullptr) < 0 && errno != EINTR) return 0;
    // Readable may mean a ring block of filtered-out or outgoing frames: loop on empty.
    n = dispatch(out);
    if (n > 0) return n;
  }
}

Expected<PcapLinkStats, std::string> PcapLink::stats() const {
  pcap_stat s{};
  if (pcap_stats(handle_.get(), &s) != 0) {
    return Unexpected(interface_ + ": pcap_stats: " + pcap_geterr(handle_.get()));
  }
  return PcapLinkStats{s.ps_recv, s.ps_drop, s.ps_ifdrop, send_failures_};
}

}  // namespace mr::io
