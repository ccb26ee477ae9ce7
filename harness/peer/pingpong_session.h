// File: pingpong_session.h
//
// The reference peer of ibv_rc_pingpong (issue #9): the tool's TCP exchange
// (pingpong_exchange.h) in the role opposite to the tool's, then its traffic pattern: the
// client sends first, each side sends its next message only once its last send completed
// and the peer's message arrived, `iters` messages of `size` bytes each way.
//
//   auto report = run_pingpong_session(link, control, {.role = Role::kServer, .size = 4096}, {});
//
// The reference is a LinkedPeer of the session's own on `link` (tool_qp.h).
#pragma once

#include <cstdint>

#include "harness/peer/control_socket.h"
#include "harness/peer/tool_qp.h"
#include "harness/peer/traffic_report.h"
#include "reference/error/expected.h"
#include "reference/io/link.h"

namespace mr::peer {

struct PingpongConfig {
  Role role = Role::kServer;  // ours; the tool plays the other
  uint32_t size = 4096;       // -s
  uint32_t iters = 1000;      // -n
  uint32_t mtu = 1024;        // -m
  uint64_t timeout_ms = 120'000;
};

Expected<TrafficReport, std::string> run_pingpong_session(io::Link& link, ControlSocket& control,
                                                          const PingpongConfig& config,
                                                          const ToolPeerOptions& identity);

}  // namespace mr::peer
