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

#include "reference/wire/frame_decoder.h"

namespace mr::wire {

nlohmann::ordered_json to_json(const DecodedRoce& d);
nlohmann::ordered_json to_json(const NotRoce& n);
nlohmann::ordered_json to_json(const ParseError& e);

}  // namespace mr::wire
