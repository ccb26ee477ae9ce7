// File: trimmed_frame.h
//
// The headers of a frame a trimming switch may have cut (spec section 23), read the way the
// receiver must read them: from the start of the packet, whatever the IP and UDP length
// fields say (a switch may or may not rewrite them, MR-TR-13), without the IPv4 header
// checksum (MR-TR-14), and as far as the bytes go. The full decoder refuses such a frame (its
// lengths disagree, its ICRC is gone); this reader keeps the BTH and the extended headers the
// cut left whole, in wire order, and stops at the first that does not fit.
//
//   if (auto t = read_trimmed_frame(frame); t && t->packet.mxh && is_trim_mark(t->dscp(), ...))
//     nak_trimmed(t->packet);
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "reference/wire/roce_packet.h"

namespace mr::wire {

struct TrimmedFrame {
  // Link, IP, UDP and BTH as received; each extended header the opcode implies that was
  // read whole before the cut; no payload, pad or ICRC.
  RocePacket packet;
  uint32_t ip_bytes_held = 0;    // the IP packet's bytes actually in the frame
  uint32_t ip_length_field = 0;  // what its IPv4 total length or IPv6 header + payload says

  uint8_t dscp() const;
  // Shorter than its IP header says: cut somewhere (a switch that rewrote the lengths leaves
  // a frame that is whole by this test; only its ICRC tells).
  bool short_of_ip_length() const { return ip_bytes_held < ip_length_field; }
};

// None when the frame is not RoCEv2 over UDP or does not hold a whole BTH.
std::optional<TrimmedFrame> read_trimmed_frame(std::span<const uint8_t> frame);

}  // namespace mr::wire
