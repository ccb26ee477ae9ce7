// File: ecn_mark.h
//
// What a congested switch does to an ECN-capable packet: sets its ECN field to Congestion
// Experienced (RFC 3168). The RoCEv2 ICRC masks the ECN bits, so the frame stays valid;
// an IPv4 header checksum is recomputed. Used by the engine's fault events and by the
// impairment policy alike.
#pragma once

#include <cstdint>
#include <vector>

namespace mr::io {

// Marks an IPv4 or IPv6 frame (optionally VLAN-tagged) CE; false when it has no IP header.
bool mark_ecn_ce(std::vector<uint8_t>& frame);

}  // namespace mr::io
