// File: malformed.h
//
// A RoCEv2 frame the decoder refused, as a clause violation: which clause the parse error
// breaks, and the addresses of its sender read straight from the bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "reference/wire/parse_error.h"

namespace mr::analyze {

// MR-WF-07 for IP/UDP lengths, MR-WF-06 for a pad count, MR-AK-14 for an ACK with
// payload or pad, MR-WF-10 for the rest (headers the opcode implies, missing ICRC).
std::string_view clause_for(const wire::ParseError& e, std::span<const uint8_t> frame);

// "198.18.0.2->198.18.0.1" from the raw frame, or "?" when even that is not there.
std::string raw_ip_pair(std::span<const uint8_t> frame, std::string* src = nullptr);

}  // namespace mr::analyze
