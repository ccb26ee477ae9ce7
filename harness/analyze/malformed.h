// File: malformed.h
//
// A RoCEv2 frame the decoder refused, as a clause violation: which clause the parse error
// breaks, the addresses of its sender (from the IP header the decoder read, else straight
// from the bytes), and its BTH when the decoder read that.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "reference/wire/parse_error.h"
#include "reference/wire/roce_packet.h"

namespace mr::analyze {

// MR-WF-07 for IP/UDP lengths, MR-WF-06 for a pad count, MR-AK-14 for an ACK with
// payload or pad, MR-WF-10 for the rest (headers the opcode implies, missing ICRC).
std::string_view clause_for(const wire::ParseError& e, std::span<const uint8_t> frame);

// "198.18.0.2->198.18.0.1" from the raw Ethernet frame, or "?" when even that is not there.
std::string raw_ip_pair(std::span<const uint8_t> frame, std::string* src = nullptr);

// The same from a refused frame's IP header, when the decoder read it whole.
std::string ip_pair(const wire::RocePacket& parsed, std::string* src = nullptr);

// "RC_SEND_ONLY dqpn 0x000012 psn 0x000100": a refused frame's BTH, as decode shows one.
std::string bth_summary(const wire::Bth& bth);

}  // namespace mr::analyze
