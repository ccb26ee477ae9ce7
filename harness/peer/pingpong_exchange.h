// File: pingpong_exchange.h
//
// The out-of-band message rdma-core's ibv_rc_pingpong sends over TCP before any RoCE
// traffic (issue #9): "LID:QPN:PSN:GID" as "%04x:%06x:%06x:" and 32 hex digits (the GID's
// 16 bytes in wire order), NUL-terminated, always 52 bytes. The client writes its message,
// reads the server's and writes "done\0"; the server reads, connects its QP, then answers.
// Written from the format alone; no rdma-core code.
//
//   PingpongDest me{.lid = 0, .qpn = 0x11, .psn = 0x1234, .gid = gid};
//   std::string wire = format_pingpong_message(me);            // 52 bytes
//   auto tool = parse_pingpong_message(wire);                  // or "field psn: ..."
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "reference/error/expected.h"
#include "reference/wire/address.h"

namespace mr::peer {

inline constexpr size_t kPingpongMessageSize = 52;  // "0000:000000:000000:" + 32 + NUL
inline constexpr std::string_view kPingpongDone{"done\0", 5};

struct PingpongDest {
  uint16_t lid = 0;  // 0 on RoCE
  uint32_t qpn = 0;  // 24 bits
  uint32_t psn = 0;  // 24 bits
  wire::Ipv6Address gid;
};

// Exactly kPingpongMessageSize bytes, NUL-terminated as the tool writes it.
std::string format_pingpong_message(const PingpongDest& dest);

// The tool's message; the error names the field ("qpn", "gid", ...) and what is wrong.
Expected<PingpongDest, std::string> parse_pingpong_message(std::string_view bytes);

}  // namespace mr::peer
