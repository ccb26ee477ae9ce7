// File: agent_server.h
//
// The agent's TCP front: listens on HOST:PORT, serves one client at a time (others wait in
// the backlog), and speaks the DUT control protocol's framing (docs/dut-control-protocol.md)
// with one ControlSession per client (control_session.h: the hello, then requests answered
// in order by the RequestDispatcher):
//   - a first line that is not a hello with the shared token gets no reply at all and the
//     connection is closed;
//   - a line longer than 1 MiB gets an EPROTO reply, then the connection is closed;
//   - bye (or a failed hello) is answered, then the connection is closed.
// Every wait is bounded: poll() ticks of tick_ms check the stop flag, a client that sends no
// hello within hello_timeout_ms or nothing within idle_timeout_ms is dropped, and a reply
// the client does not read within write_timeout_ms drops it too.
//
//   auto server = AgentServer::listen({.host = "127.0.0.1", .port = 0, .token = t}, dispatcher);
//   std::atomic<bool> stop{false};
//   server->serve(stop);   // until stop becomes true
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "harness/agent/control_session.h"
#include "harness/agent/request_dispatcher.h"
#include "harness/agent/unique_fd.h"
#include "reference/error/expected.h"

namespace mr::agent {

struct AgentServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: an ephemeral port (read it with port())
  std::string token;  // must not be empty
  uint64_t tick_ms = 100;
  uint64_t hello_timeout_ms = 10'000;
  uint64_t idle_timeout_ms = 600'000;
  uint64_t write_timeout_ms = 10'000;
};

class AgentServer {
 public:
  using Logger = std::function<void(const std::string&)>;

  static Expected<AgentServer, std::string> listen(AgentServerOptions options,
                                                   RequestDispatcher& dispatcher, Logger log = {});

  uint16_t port() const { return port_; }
  // Serves clients one after another until stop becomes true.
  void serve(const std::atomic<bool>& stop);
  // Waits at most accept_timeout_ms for one client and serves it to its end. Returns
  // false when no client came.
  bool serve_one(const std::atomic<bool>& stop, uint64_t accept_timeout_ms);

 private:
  AgentServer(AgentServerOptions options, UniqueFd fd, RequestDispatcher& dispatcher, Logger log);
  void serve_client(UniqueFd client, const std::atomic<bool>& stop);
  void log(const std::string& message) const;

  AgentServerOptions options_;
  UniqueFd listen_fd_;
  uint16_t port_ = 0;
  RequestDispatcher* dispatcher_;
  Logger log_;
};

}  // namespace mr::agent
