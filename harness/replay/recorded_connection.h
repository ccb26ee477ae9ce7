// File: recorded_connection.h
//
// One RC connection of a capture, as `replay` needs it: the requester's packets and the
// responder's answers in capture order, with their times. Which side is the requester is
// inferred from the opcodes (requests vs. ACKs and responses); the connection is chosen by
// its index among the connections the capture holds, in order of first request.
//
//   auto c = extract_connection("trace.pcapng", 0);
//   if (!c) fail(c.error());   // "trace.pcapng: byte 1234: ..." or "no RC requests found"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/frame_decoder.h"

namespace mr::replay {

struct RecordedPacket {
  bool from_requester = true;
  bool synthesized = false;  // written from the spec by the script, not in the capture
  uint64_t t_ns = 0;
  uint64_t frame_number = 0;  // 1-based, as tshark and `decode` count
  wire::DecodedRoce decoded;
  std::vector<uint8_t> payload;  // owned copy: the capture mapping does not outlive us
};

struct RecordedConnection {
  std::string requester_ip;
  std::string responder_ip;
  uint32_t requester_qpn = 0;  // learned from the first answer (its BTH DestQP)
  uint32_t responder_qpn = 0;  // the requests' BTH DestQP
  std::vector<RecordedPacket> packets;
  size_t connections_in_capture = 0;
  // Frames of the capture that could not be decoded (truncated, snapped, malformed): they
  // may belong to the connection, and a script made from it says that it lacks them.
  struct OmittedFrame {
    uint64_t frame_number = 0;
    std::string reason;
  };
  std::vector<OmittedFrame> omitted;
  // Why the capture file ended early (a truncated block), or empty: the frames before it
  // are the connection, as `analyze` reads them too.
  std::string file_error;
};

// True for the opcodes a responder sends: ACK/NAK, READ responses, ATOMIC ACK.
bool is_response_opcode(uint8_t opcode);

Expected<RecordedConnection, std::string> extract_connection(const std::string& path, size_t index);

}  // namespace mr::replay
