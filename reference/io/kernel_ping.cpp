#include "reference/io/kernel_ping.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "reference/io/clock.h"

namespace mr::io {
namespace {

constexpr uint8_t kEchoRequest4 = 8;
constexpr uint8_t kEchoReply4 = 0;
constexpr uint8_t kEchoRequest6 = 128;
constexpr uint8_t kEchoReply6 = 129;

// Closes the descriptor on every path.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

std::string ping_inside(const std::string& address, const std::string& interface, uint16_t seq,
                        uint64_t timeout_ns, uint64_t& rtt_ns) {
  // Ping sockets are off in a fresh namespace (ping_group_range "1 0"): allow root's group.
  std::ofstream("/proc/sys/net/ipv4/ping_group_range") << "0 0";
  sockaddr_storage to{};
  socklen_t to_len = 0;
  const bool v6 = address.find(':') != std::string::npos;
  if (v6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&to);
    s6->sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, address.c_str(), &s6->sin6_addr) != 1) return "bad address";
    s6->sin6_scope_id = if_nametoindex(interface.c_str());
    to_len = sizeof(sockaddr_in6);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&to);
    s4->sin_family = AF_INET;
    if (inet_pton(AF_INET, address.c_str(), &s4->sin_addr) != 1) return "bad address";
    to_len = sizeof(sockaddr_in);
  }
  Socket sock;
  sock.fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC,
                   v6 ? int{IPPROTO_ICMPV6} : int{IPPROTO_ICMP});
  if (sock.fd < 0) return std::string("ping socket: ") + std::strerror(errno);
  // Type, code, checksum (the kernel fills it), id (the kernel uses the socket's), seq.
  std::array<uint8_t, 16> request = {
      v6 ? kEchoRequest6 : kEchoRequest4, 0,   0,   0,  0, 0, static_cast<uint8_t>(seq >> 8),
      static_cast<uint8_t>(seq),          'm', 'r', 't'};
  const SystemClock clock;
  const uint64_t start = clock.now_ns();
  if (sendto(sock.fd, request.data(), request.size(), 0, reinterpret_cast<sockaddr*>(&to), to_len) <
      0) {
    return std::string("sendto: ") + std::strerror(errno);
  }
  const uint64_t deadline = start + timeout_ns;
  while (true) {
    const uint64_t now = clock.now_ns();
    if (now >= deadline) return "no reply within " + std::to_string(timeout_ns / 1000000) + " ms";
    pollfd pfd{sock.fd, POLLIN, 0};
    const auto wait_ms = static_cast<int>((deadline - now + 999'999) / 1'000'000);
    if (poll(&pfd, 1, wait_ms) <= 0) continue;
    std::array<uint8_t, 1500> reply{};
    const ssize_t n = recv(sock.fd, reply.data(), reply.size(), 0);
    if (n < 8) continue;
    const uint8_t want = v6 ? kEchoReply6 : kEchoReply4;
    const auto got_seq = static_cast<uint16_t>(reply[6] << 8 | reply[7]);
    if (reply[0] == want && got_seq == seq) {
      rtt_ns = clock.now_ns() - start;
      return "";
    }
  }
}

}  // namespace

Expected<uint64_t, std::string> kernel_ping(const NetworkNamespace& ns, const std::string& address,
                                            const std::string& interface, uint16_t seq,
                                            uint64_t timeout_ns) {
  std::string error;
  uint64_t rtt = 0;
  auto ran = ns.run_inside([&] { error = ping_inside(address, interface, seq, timeout_ns, rtt); });
  if (!ran) return Unexpected(ran.error());
  if (!error.empty()) return Unexpected(ns.name() + ": ping " + address + ": " + error);
  return rtt;
}

}  // namespace mr::io
