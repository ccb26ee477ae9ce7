// File: local_agent.h
//
// An agent started by the harness on this host, for a DUT that is a verbs device in the
// same machine (`--dut verbs:DEVICE`, a cluster node's own NIC): the harness's binary run
// as `agent --listen 127.0.0.1:0 --token-file F ARGS...`, its messages in a log file, a
// fresh random token in a private folder, and the port it bound read from its
// "listening on" line. The run then talks to it as to any agent:// DUT. Destroying it
// stops the agent (SIGTERM, then SIGKILL after a bounded wait) and removes the token.
//
// Usage:
//   auto agent = LocalAgent::start({.binary = "/proc/self/exe",
//                                   .args = {"--backend", "verbs", "--device", "mlx5_0"},
//                                   .log_path = "out/local-agent.log"});
//   DutControl::connect("127.0.0.1", agent->port(), agent->token());
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference/error/expected.h"

namespace mr::dut {

struct LocalAgentOptions {
  std::string binary;                  // the metaroce binary ("" = this process's executable)
  std::vector<std::string> args;       // after `agent`: the backend and its device
  std::string log_path;                // the agent's stdout and stderr ("" = in the private folder)
  uint64_t start_timeout_ms = 15'000;  // until it listens; a verbs device opens in well under
  uint64_t stop_timeout_ms = 5'000;    // from SIGTERM to SIGKILL
};

class LocalAgent {
 public:
  // Started and listening, or an error with the agent's last log lines (its own reason:
  // "no RDMA device", a bad --device).
  static Expected<LocalAgent, std::string> start(const LocalAgentOptions& options);

  LocalAgent(LocalAgent&& other) noexcept;
  LocalAgent& operator=(LocalAgent&& other) noexcept;
  LocalAgent(const LocalAgent&) = delete;
  LocalAgent& operator=(const LocalAgent&) = delete;
  ~LocalAgent();

  uint16_t port() const { return port_; }
  const std::string& token() const { return token_; }
  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  // Stops the agent and reaps it; its exit ("exit 0", "signal 9"), or "" if none ran.
  std::string stop();

 private:
  LocalAgent() = default;
  void release();

  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string token_;
  std::string folder_;  // private (0700): the token file, and the log unless one was named
  std::string log_path_;
  uint64_t stop_timeout_ms_ = 5'000;
};

}  // namespace mr::dut
