#include "harness/peer/control_socket.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "harness/agent/socket_io.h"

namespace mr::peer {
namespace {

// Waits for fd to be readable until deadline_ms (CLOCK_MONOTONIC ms); false on timeout.
bool wait_readable(int fd, uint64_t deadline_ms) {
  for (;;) {
    const uint64_t now = agent::monotonic_ms();
    if (now >= deadline_ms) return false;
    pollfd p{fd, POLLIN, 0};
    const int rc = poll(&p, 1, static_cast<int>(std::min<uint64_t>(deadline_ms - now, 1000)));
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) return true;  // let the read report the error
  }
}

}  // namespace

Expected<ControlSocket, std::string> ControlSocket::connect(const std::string& host, uint16_t port,
                                                            uint64_t timeout_ms) {
  const uint64_t deadline = agent::monotonic_ms() + timeout_ms;
  std::string last = "no attempt";
  while (agent::monotonic_ms() < deadline) {
    const uint64_t left = deadline - agent::monotonic_ms();
    auto fd = agent::connect_tcp(host, port, std::min<uint64_t>(left, 2000));
    if (fd) return ControlSocket(std::move(*fd));
    last = fd.error();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the tool is not up yet
  }
  return Unexpected("connecting to the tool at " + host + ":" + std::to_string(port) + " for " +
                    std::to_string(timeout_ms) + " ms: " + last);
}

ControlSocket ControlSocket::adopt(agent::UniqueFd fd) { return ControlSocket(std::move(fd)); }

Expected<ControlSocket, std::string> ControlSocket::accept(int listen_fd, uint64_t timeout_ms) {
  const uint64_t deadline = agent::monotonic_ms() + timeout_ms;
  for (;;) {
    if (!wait_readable(listen_fd, deadline)) {
      return Unexpected("no connection from the tool within " + std::to_string(timeout_ms) + " ms");
    }
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      agent::set_no_delay(fd);
      return ControlSocket(agent::UniqueFd(fd));
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Unexpected(std::string("accept: ") + std::strerror(errno));
    }
  }
}

Expected<std::string, std::string> ControlSocket::read_exact(size_t n, uint64_t timeout_ms,
                                                             std::string_view what) {
  const uint64_t deadline = agent::monotonic_ms() + timeout_ms;
  std::string out;
  out.reserve(n);
  while (out.size() < n) {
    if (!wait_readable(fd_.get(), deadline)) {
      return Unexpected("reading the " + std::string(what) + ": " + std::to_string(out.size()) +
                        " of " + std::to_string(n) + " bytes within " + std::to_string(timeout_ms) +
                        " ms");
    }
    char buffer[4096];
    const ssize_t got = ::recv(fd_.get(), buffer, std::min(sizeof buffer, n - out.size()), 0);
    if (got == 0) {
      return Unexpected("reading the " + std::string(what) +
                        ": the tool closed the connection after " + std::to_string(out.size()) +
                        " of " + std::to_string(n) + " bytes");
    }
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return Unexpected("reading the " + std::string(what) + ": " + std::strerror(errno));
    }
    out.append(buffer, static_cast<size_t>(got));
  }
  return out;
}

Expected<std::string, std::string> ControlSocket::read_some(size_t max, uint64_t timeout_ms,
                                                            std::string_view what) {
  const uint64_t deadline = agent::monotonic_ms() + timeout_ms;
  for (;;) {
    if (!wait_readable(fd_.get(), deadline)) {
      return Unexpected("reading the " + std::string(what) + ": nothing within " +
                        std::to_string(timeout_ms) + " ms");
    }
    std::string buffer(max, '\0');
    const ssize_t got = ::recv(fd_.get(), buffer.data(), max, 0);
    if (got >= 0) {
      buffer.resize(static_cast<size_t>(got));
      return buffer;
    }
    if (errno == ECONNRESET) return std::string();  // closed with our last message unread
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Unexpected("reading the " + std::string(what) + ": " + std::strerror(errno));
    }
  }
}

Expected<void, std::string> ControlSocket::write_all(std::string_view data, uint64_t timeout_ms,
                                                     std::string_view what) {
  auto sent = agent::send_all(fd_.get(), data, timeout_ms);
  if (!sent) return Unexpected("writing the " + std::string(what) + ": " + sent.error());
  return {};
}

}  // namespace mr::peer
