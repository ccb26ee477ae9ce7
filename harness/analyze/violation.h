// File: violation.h
//
// One clause violation found in a capture: which clause, which frame, when, on which flow,
// who sent the offending packet, and one sentence saying what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mr::analyze {

struct Violation {
  std::string_view clause;  // "MR-PS-05"; always a literal from the checkers
  uint64_t frame = 0;       // 1-based frame number in the capture
  uint64_t time_ns = 0;     // capture timestamp
  std::string flow;         // "198.18.0.2->198.18.0.1 qp 0x000123" (requester->responder)
  std::string sender;       // IP address that sent the offending packet
  bool by_tester = false;   // the packet was injected by the harness (pcapng comment)
  std::string text;         // one sentence
};

}  // namespace mr::analyze
