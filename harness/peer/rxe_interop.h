// File: rxe_interop.h
//
// One interop run (issue #9): an unmodified tool (ibv_rc_pingpong or a perftest tool) in
// the Linux rxe guest (harness/dut/rxe, exec mode) against the reference peer playing
// 198.18.0.1 on the guest's tap through libpcap. The tool's TCP exchange goes to the host
// kernel's end of the tap (198.18.0.3), where the peer listens or connects from; the GID
// the peer gives is its own IPv4-mapped one, so the RoCE traffic goes to the played
// identity. The whole RoCE exchange is captured to pcapng and analyzed afterwards.
//
//   InteropCase c{.tool = "ib_write_bw", .tool_role = Role::kClient, .mtu = 4096,
//                 .size = 65536, .iters = 100};
//   auto r = run_interop_case(c, {.capture_path = "/tmp/write.pcapng"});
//   if (r && r->passed()) ...     // tool exit 0, its success output, no violation
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/peer/tool_output.h"
#include "harness/peer/traffic_report.h"
#include "reference/error/expected.h"

namespace mr::peer {

struct InteropCase {
  std::string tool;                // "ibv_rc_pingpong", "ib_send_bw", ...
  Role tool_role = Role::kClient;  // the tool's role; the reference plays the other
  uint32_t mtu = 1024;
  uint32_t size = 4096;
  uint32_t iters = 100;
  std::string name() const;  // "ib_write_bw-client-mtu4096-s65536"
};

struct InteropOptions {
  std::string capture_path;       // required: the pcapng of the RoCE exchange
  std::string console_log;        // "" = a temp file of the guest's
  uint16_t port = 18515;          // the tools' default TCP port
  uint64_t timeout_ms = 300'000;  // the whole run after boot (TCG is slow)
  uint64_t seed = 1;
};

struct InteropResult {
  std::string command_line;  // what ran in the guest
  int tool_status = -1;
  std::string tool_output;
  std::optional<std::string> peer_error;  // the reference side's failure, if any
  TrafficReport peer;
  std::optional<std::string> output_error;  // the tool's success output missing
  std::string tool_summary;                 // "53.28 Mbit/sec" or "BW average 123.45 MB/sec"
  uint64_t frames = 0;                      // captured
  uint64_t roce_frames = 0;
  uint64_t violations = 0;
  std::vector<std::string> violation_lines;  // the first few
  bool passed() const {
    return tool_status == 0 && !peer_error && !output_error && violations == 0 && roce_frames > 0;
  }
  std::string verdict() const;  // "pass" or what failed
};

// The guest command line of a case.
std::string tool_command_line(const InteropCase& c, uint16_t port);

// Boots a guest for the case, runs the peer and the tool, analyzes the capture. An error
// only when the run could not happen (no guest, no capture); a tool or peer failure is in
// the result.
Expected<InteropResult, std::string> run_interop_case(const InteropCase& c,
                                                      const InteropOptions& options);

// The matrix: the default subset (about ten runs) or every tool x role x op x MTU x size.
std::vector<InteropCase> interop_matrix(bool full);

}  // namespace mr::peer
