// File: socket_io.h
//
// The few socket operations the agent server and the TCP client share, each bounded in
// time: listen and connect by "host" and port, send a whole buffer, and read one line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/agent/unique_fd.h"
#include "reference/error/expected.h"

namespace mr::agent {

// Milliseconds on CLOCK_MONOTONIC.
uint64_t monotonic_ms();

// A non-blocking listening TCP socket on host:port (port 0: an ephemeral port).
Expected<UniqueFd, std::string> listen_tcp(const std::string& host, uint16_t port);
// The local port a socket is bound to.
uint16_t local_port(int fd);
// A non-blocking connected TCP socket, waiting at most timeout_ms for the connection.
Expected<UniqueFd, std::string> connect_tcp(const std::string& host, uint16_t port,
                                            uint64_t timeout_ms);
// Turns Nagle's algorithm off: a control exchange is a line each way, and a reply held back
// for the peer's delayed ACK costs up to 40 ms per round trip (seen as ~50 ms to a tester's
// first answer on a real-clock bed).
void set_no_delay(int fd);
// Sends all of data, waiting at most timeout_ms in total for the socket to take it.
Expected<void, std::string> send_all(int fd, std::string_view data, uint64_t timeout_ms);

// Splits a "HOST:PORT" or "[V6]:PORT" string.
Expected<std::pair<std::string, uint16_t>, std::string> split_host_port(std::string_view text);

// Accumulates bytes from a socket and hands out complete lines.
class LineReader {
 public:
  explicit LineReader(size_t max_line) : max_line_(max_line) {}
  enum class Status { kLine, kTimeout, kClosed, kTooLong, kError };
  // Waits at most timeout_ms for a complete line; the line has no '\n' (nor '\r').
  Status read_line(int fd, uint64_t timeout_ms, std::string& line);
  // A complete line already buffered, without reading.
  bool take_buffered(std::string& line);

 private:
  size_t max_line_;
  std::string buffer_;
};

}  // namespace mr::agent
