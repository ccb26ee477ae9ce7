// File: protocol_limits.h
//
// The bounds of the DUT control protocol (docs/dut-control-protocol.md), in one header with
// no dependencies: the agent enforces them on requests, and the harness's engine shapes its
// requests to them (a wait longer than kMaxPollTimeoutMs is split into several requests),
// without depending on the rest of the agent.
//
//   request["timeout_ms"] = std::min<uint64_t>(wait_ms, protocol::kMaxPollTimeoutMs);
#pragma once

#include <cstddef>
#include <cstdint>

namespace mr::protocol {

inline constexpr int kProtocolVersion = 1;
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;  // one request or reply line
inline constexpr uint32_t kMaxSge = 16;                   // per work request
inline constexpr uint64_t kMaxMemTransfer = 256 * 1024;   // read_mem / write_mem bytes
// The longest single wait of poll_cq and get_cq_event (their timeout_ms).
inline constexpr uint32_t kMaxPollTimeoutMs = 10'000;
inline constexpr uint32_t kMaxPollEntries = 1024;

}  // namespace mr::protocol
