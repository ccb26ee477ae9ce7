// File: packet_trimmer.h
//
// What a trimming switch does to a frame it cannot queue (spec section 23): keep the
// first Trimming::ip_bytes of the IP packet (the headers a receiver needs to NAK it),
// rewrite the DSCP to the trim mark, and, as the switch is configured, rewrite the IP and
// UDP length fields to the cut size and the IPv4 header checksum. A frame already shorter
// than the trim size is only re-marked. The ICRC is lost with the tail.
//
// Usage:
//   trim_frame(packet.bytes, packet.headers, config.trimming, config.trimming.dscp);
#pragma once

#include <cstdint>
#include <vector>

#include "reference/io/fabric/fabric_config.h"
#include "reference/io/fabric/frame_headers.h"

namespace mr::io::fabric {

// Returns true when bytes were cut. Shrinking keeps the vector's capacity.
bool trim_frame(std::vector<uint8_t>& frame, const FrameHeaders& headers, const Trimming& trimming,
                uint8_t dscp);

}  // namespace mr::io::fabric
