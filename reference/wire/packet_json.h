// File: packet_json.h
//
// A decoded frame as JSON, with Scapy's layer and field names: the shape of
// `metaroce decode --json` (documented in docs/decode-json.md) and of packets in reports.
//
//   {"roce": true, "opcode_name": "RC_ACKNOWLEDGE", "layers": ["Ether","IP","UDP","BTH","AETH"],
//    "Ether": {...}, "IP": {...}, "UDP": {...}, "BTH": {"opcode": 17, ...}, "AETH": {...},
//    "payload": "", "payload_len": 0, "pad": "", "icrc": 1974708791, "icrc_ok": true}
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/frame_decoder.h"

namespace mr::wire {

nlohmann::ordered_json to_json(const DecodedRoce& d);
nlohmann::ordered_json to_json(const NotRoce& n);
nlohmann::ordered_json to_json(const ParseError& e);
// A refused frame: {"roce": false, ["opcode_name",] "layers": [the headers read before the
// error], one object per such header, "error": {header, field, offset, reason}}.
nlohmann::ordered_json to_json(const MalformedFrame& m);

// A packet read back from that JSON shape, owning its payload and pad bytes.
class OwnedPacket {
 public:
  RocePacket headers;  // payload and pad spans are empty here; view() fills them
  std::vector<uint8_t> payload;
  std::vector<uint8_t> pad;
  // The packet with its spans pointing into this object: valid while it lives unchanged.
  RocePacket view() const;
};

// Reads the layers present in `j` (by Scapy layer name) with their fields. Meta keys of
// the decode output (frame, time, layers, icrc_ok, ...) are ignored; an unknown layer
// field, a value that does not fit its field's width, or a malformed address is an error
// naming Layer.field.
Expected<OwnedPacket, std::string> packet_from_json(const nlohmann::json& j);

}  // namespace mr::wire
