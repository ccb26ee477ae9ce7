// File: control_socket.h
//
// The TCP connection a tool's out-of-band exchange runs on, with every wait bounded: connect
// (retried until the deadline, since the tool in the guest may not listen yet), accept, read
// exactly N bytes, write a whole message. Errors name the message being read or written.
//
//   auto listener = agent::listen_tcp("198.18.0.3", 18515);
//   auto control = ControlSocket::accept(listener->get(), 60'000);
//   auto bytes = control->read_exact(52, 10'000, "ibv_rc_pingpong message");
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "harness/agent/unique_fd.h"
#include "reference/error/expected.h"

namespace mr::peer {

class ControlSocket {
 public:
  // Connects to host:port, retrying refused connections until timeout_ms has passed.
  static Expected<ControlSocket, std::string> connect(const std::string& host, uint16_t port,
                                                      uint64_t timeout_ms);
  // A connected stream socket of the caller's (tests use one end of a socketpair).
  static ControlSocket adopt(agent::UniqueFd fd);
  // Accepts one connection on a listening socket, waiting at most timeout_ms.
  static Expected<ControlSocket, std::string> accept(int listen_fd, uint64_t timeout_ms);

  // Exactly n bytes; an error on timeout or when the peer closes first (saying how many came).
  Expected<std::string, std::string> read_exact(size_t n, uint64_t timeout_ms,
                                                std::string_view what);
  // Up to max bytes, whatever arrives first; "" when the peer closed the connection (also
  // by a reset: a tool that exits without reading our last message).
  Expected<std::string, std::string> read_some(size_t max, uint64_t timeout_ms,
                                               std::string_view what);
  Expected<void, std::string> write_all(std::string_view data, uint64_t timeout_ms,
                                        std::string_view what);

 private:
  explicit ControlSocket(agent::UniqueFd fd) : fd_(std::move(fd)) {}
  agent::UniqueFd fd_;
};

}  // namespace mr::peer
