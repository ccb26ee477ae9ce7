// File: traffic_report.h
//
// What the reference peer measured of one traffic run (issue #9), printed by `metaroce
// peer` beside the tool's own numbers, and the role words both sides share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mr::peer {

// Whose TCP end listens: the tools' "server" (no address) or "client" (the server's address).
enum class Role : uint8_t { kServer, kClient };
inline std::string_view to_string(Role r) { return r == Role::kServer ? "server" : "client"; }
inline Role opposite(Role r) { return r == Role::kServer ? Role::kClient : Role::kServer; }

struct TrafficReport {
  uint64_t messages_sent = 0;
  uint64_t messages_received = 0;  // receives, or the tool's WRITEs seen in memory
  uint64_t bytes = 0;              // payload moved by both directions
  double seconds = 0;
  std::string tool_says;         // what the tool reported to us over TCP, if anything
  std::string describe() const;  // "1000 sent, 1000 received, 8192000 bytes in 1.23 s"
};

}  // namespace mr::peer
