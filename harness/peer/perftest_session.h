// File: perftest_session.h
//
// The reference peer of perftest's RC tools (issue #9): their TCP exchange
// (perftest_exchange.h: version, cycle buffer, cache line, MTU, keys) in the role opposite to
// the tool's, the keys handshakes they synchronise with, and each tool's traffic pattern:
//   ib_send_bw / ib_write_bw / ib_read_bw / ib_atomic_bw: the client moves `iters` messages
//     (SEND, WRITE, READ, FETCH_AND_ADD) with a window of them outstanding; the server is
//     passive (it only posts receives for SEND);
//   ib_send_lat: SEND ping-pong, the client first;
//   ib_write_lat: WRITE ping-pong, each side waiting for the last byte of its buffer to
//     carry the peer's count; the server writes first;
//   ib_read_lat: the client READs one at a time; the server is passive.
//
//   auto report = run_perftest_session(link, control,
//                                      {.tool = PerftestTool::kWriteBw, .role = Role::kServer},
//                                      {});
//
// The reference is a LinkedPeer of the session's own on `link` (tool_qp.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "harness/peer/control_socket.h"
#include "harness/peer/tool_qp.h"
#include "harness/peer/traffic_report.h"
#include "reference/error/expected.h"
#include "reference/io/link.h"

namespace mr::peer {

enum class PerftestTool : uint8_t {
  kSendBw,
  kWriteBw,
  kReadBw,
  kAtomicBw,
  kSendLat,
  kWriteLat,
  kReadLat,
};

std::string_view tool_name(PerftestTool tool);  // "ib_send_bw", ...
std::optional<PerftestTool> perftest_tool_by_name(std::string_view name);
bool is_bandwidth_tool(PerftestTool tool);
std::string_view operation_name(PerftestTool tool);  // "SEND", "WRITE", "READ", "ATOMIC"

// The results a one-sided bandwidth client reports to the server after its traffic.
struct PerftestReport {
  uint64_t size = 0;
  uint64_t iters = 0;
  double bw_peak_mb = 0;     // MB/s (2^20 bytes)
  double bw_average_mb = 0;  // MB/s
  double msg_rate_mpps = 0;
  std::string describe() const;
};

struct PerftestConfig {
  PerftestTool tool = PerftestTool::kSendBw;
  Role role = Role::kServer;  // ours; the tool plays the other
  uint32_t size = 65536;      // -s (ATOMIC: always 8)
  uint32_t iters = 1000;      // -n
  uint32_t mtu = 1024;        // -m
  uint32_t tx_depth = 128;    // our window of outstanding requests (bandwidth tools)
  uint64_t timeout_ms = 120'000;
};

Expected<TrafficReport, std::string> run_perftest_session(io::Link& link, ControlSocket& control,
                                                          const PerftestConfig& config,
                                                          const ToolPeerOptions& identity);

}  // namespace mr::peer
