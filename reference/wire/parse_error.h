// File: parse_error.h
//
// What went wrong while reading a packet: which header and field, at which byte offset of
// the frame, and why. Wire input is hostile, so every parser returns one of these instead
// of throwing or reading past the end.
#pragma once

#include <cstddef>
#include <string>

namespace mr::wire {

struct ParseError {
  std::string header;  // Scapy layer name: "BTH", "IP", "RETH", ...
  std::string field;   // Scapy field name, or "" when the header as a whole is short
  size_t offset = 0;   // byte offset in the frame where the problem is
  std::string reason;  // one sentence, e.g. "needs 12 bytes, 7 remain"

  // "BTH.padcount at byte 43: pad count 3 exceeds the 2-byte payload"
  std::string to_string() const;
};

}  // namespace mr::wire
