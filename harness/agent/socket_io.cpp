#include "harness/agent/socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <memory>

namespace mr::agent {
namespace {

struct AddrInfoFree {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};

Expected<std::unique_ptr<addrinfo, AddrInfoFree>, std::string> resolve(const std::string& host,
                                                                       uint16_t port,
                                                                       bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* out = nullptr;
  const std::string service = std::to_string(port);
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &out);
  if (rc != 0) return Unexpected(host + ": " + gai_strerror(rc));
  return std::unique_ptr<addrinfo, AddrInfoFree>(out);
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

bool set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

int poll_one(int fd, short events, uint64_t timeout_ms) {
  pollfd p{fd, events, 0};
  const int rc = ::poll(&p, 1, static_cast<int>(std::min<uint64_t>(timeout_ms, 1'000'000)));
  if (rc <= 0) return rc;
  return p.revents;
}

}  // namespace

uint64_t monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1'000'000;
}

Expected<UniqueFd, std::string> listen_tcp(const std::string& host, uint16_t port) {
  auto addrs = resolve(host, port, true);
  if (!addrs) return Unexpected(addrs.error());
  std::string last = "no address for " + host;
  for (addrinfo* a = addrs->get(); a != nullptr; a = a->ai_next) {
    UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd.valid()) {
      last = errno_text("socket");
      continue;
    }
    const int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0) {
      last = errno_text("bind " + host + ":" + std::to_string(port));
      continue;
    }
    if (::listen(fd.get(), 4) != 0 || !set_nonblocking(fd.get())) {
      last = errno_text("listen");
      continue;
    }
    return fd;
  }
  return Unexpected(last);
}

uint16_t local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

Expected<UniqueFd, std::string> connect_tcp(const std::string& host, uint16_t port,
                                            uint64_t timeout_ms) {
  auto addrs = resolve(host, port, false);
  if (!addrs) return Unexpected(addrs.error());
  std::string last = "no address for " + host;
  const uint64_t deadline = monotonic_ms() + timeout_ms;
  for (addrinfo* a = addrs->get(); a != nullptr; a = a->ai_next) {
    UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd.valid() || !set_nonblocking(fd.get())) {
      last = errno_text("socket");
      continue;
    }
    if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last = errno_text("connect " + host + ":" + std::to_string(port));
      continue;
    }
    const uint64_t now = monotonic_ms();
    const int ev = poll_one(fd.get(), POLLOUT, deadline > now ? deadline - now : 0);
    int err = 0;
    socklen_t len = sizeof err;
    if (ev <= 0) {
      last = "connect " + host + ":" + std::to_string(port) + ": timed out";
      continue;
    }
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      last = "connect " + host + ":" + std::to_string(port) + ": " + std::strerror(err);
      continue;
    }
    set_no_delay(fd.get());
    return fd;
  }
  return Unexpected(last);
}

void set_no_delay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Expected<void, std::string> send_all(int fd, std::string_view data, uint64_t timeout_ms) {
  const uint64_t deadline = monotonic_ms() + timeout_ms;
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Unexpected(errno_text("send"));
    }
    const uint64_t now = monotonic_ms();
    if (now >= deadline) return Unexpected(std::string("send: timed out"));
    if (poll_one(fd, POLLOUT, deadline - now) < 0 && errno != EINTR) {
      return Unexpected(errno_text("poll"));
    }
  }
  return {};
}

Expected<std::pair<std::string, uint16_t>, std::string> split_host_port(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return Unexpected("expected HOST:PORT, got " + std::string(text));
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535) {
    return Unexpected("bad port in " + std::string(text));
  }
  return std::pair{std::string(host), static_cast<uint16_t>(port)};
}

bool LineReader::take_buffered(std::string& line) {
  const size_t nl = buffer_.find('\n');
  if (nl == std::string::npos) return false;
  line.assign(buffer_, 0, nl);
  buffer_.erase(0, nl + 1);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

LineReader::Status LineReader::read_line(int fd, uint64_t timeout_ms, std::string& line) {
  const uint64_t deadline = monotonic_ms() + timeout_ms;
  std::array<char, 65536> chunk{};
  for (;;) {
    if (take_buffered(line)) return line.size() > max_line_ ? Status::kTooLong : Status::kLine;
    if (buffer_.size() > max_line_) return Status::kTooLong;
    const uint64_t now = monotonic_ms();
    if (now >= deadline) return Status::kTimeout;
    const int ev = poll_one(fd, POLLIN, deadline - now);
    if (ev < 0) {
      if (errno == EINTR) continue;
      return Status::kError;
    }
    if (ev == 0) continue;
    const ssize_t n = ::recv(fd, chunk.data(), chunk.size(), 0);
    if (n == 0) return Status::kClosed;
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return Status::kError;
    }
    buffer_.append(chunk.data(), static_cast<size_t>(n));
  }
}

}  // namespace mr::agent
