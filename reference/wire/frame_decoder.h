// File: frame_decoder.h
//
// Bytes from the wire to headers. Wire input is hostile: every read is bounds-checked and
// any inconsistency (lengths that disagree, a pad count larger than the payload, headers
// the opcode implies but the packet lacks, payload on an opcode that carries none) comes
// back as a ParseError naming the header, the field and the byte offset.
//
// A frame that is well-formed but not RoCEv2 (ARP, TCP, UDP to another port) is not an
// error: it decodes to NotRoce, saying what it is.
//
// Usage:
//   auto d = decode_frame(bytes);
//   if (!d) log(d.error().to_string());
//   else if (auto* roce = std::get_if<DecodedRoce>(&*d)) use(roce->packet);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "reference/error/expected.h"
#include "reference/wire/parse_error.h"
#include "reference/wire/roce_packet.h"

namespace mr::wire {

struct NotRoce {
  std::string_view what;  // "ethertype", "ip protocol", "udp port", "ip fragment", ...
  uint32_t value = 0;     // the value that made it so
  std::string to_string() const;
};

struct DecodedRoce {
  RocePacket packet;
  bool opcode_known = true;  // false: BTH opcode not in the table; rest shown as payload
  uint32_t icrc_computed = 0;
  size_t l3_offset = 0;         // frame offset of the IP header
  size_t transport_offset = 0;  // frame offset of the BTH
  bool icrc_ok() const { return packet.icrc == icrc_computed; }
};

using DecodedFrame = std::variant<NotRoce, DecodedRoce>;

Expected<DecodedFrame, ParseError> decode_frame(std::span<const uint8_t> frame);

// The hot-path form for streaming many frames: decodes into `out`, reusing its storage.
// On error `out` holds a partial decode and must not be used.
Expected<void, ParseError> decode_frame_into(std::span<const uint8_t> frame, DecodedFrame& out);

}  // namespace mr::wire
