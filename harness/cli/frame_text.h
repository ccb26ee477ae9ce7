// File: frame_text.h
//
// `metaroce decode`'s line for one frame, for people. A RoCEv2 frame, tcpdump-like:
//   "     1 1700000000.000000000 10.0.0.1 > 10.0.0.2 RC_ACKNOWLEDGE dqpn 0x000012 psn 0x000100
//    syndrome 0x1f msn 1 len 0 icrc ok"
// A frame the codec refused shows every header read before the error, then the error
// naming header, field and byte offset, as tshark shows a malformed packet:
//   "     7 1700000106.000000000 Ether 02:00:00:00:00:01 > 02:00:00:00:00:02 type 0x0800 /
//    IP 10.0.0.1 > 10.0.0.2 / UDP 49443 > 4791 len 28 / BTH RC_ACKNOWLEDGE dqpn 0x000012
//    psn 0x000100 / AETH syndrome 0x1f msn 1 [Malformed: BTH.padcount at byte 43: ...]"
// (each one line). Any other frame: its number, time and what it is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "reference/wire/frame_decoder.h"

namespace mr::cli {

// Seconds with nine decimals, from integer nanoseconds.
std::string seconds_text(uint64_t ns);

std::string roce_line(uint64_t frame, uint64_t time_ns, const wire::DecodedRoce& d);
std::string malformed_line(uint64_t frame, uint64_t time_ns, const wire::MalformedFrame& m);
std::string other_line(uint64_t frame, uint64_t time_ns, std::string_view what);

}  // namespace mr::cli
