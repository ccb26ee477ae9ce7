// File: frame_builder.h
//
// Headers to bytes. By default the builder fills what a sender computes (IP and UDP
// lengths, IPv4 header checksum, ICRC) and writes every other field as given, so a test
// can craft any packet, including wrong ones: switch a fill off to keep the given value.
//
// Usage:
//   RocePacket p;  p.bth.opcode = kOpRcSendOnly;  p.payload = bytes;
//   std::vector<uint8_t> frame = build_frame(p);
#pragma once

#include <cstdint>
#include <vector>

#include "reference/wire/roce_packet.h"

namespace mr::wire {

struct BuildOptions {
  bool fill_lengths = true;      // IP len / IPv6 plen, UDP len
  bool fill_ip_checksum = true;  // IPv4 header checksum
  bool fill_padding = false;     // padcount = (-payload) & 3 and zero pad bytes, ignoring p.pad
  bool fill_icrc = true;         // otherwise p.icrc is written as given
};

std::vector<uint8_t> build_frame(const RocePacket& p, const BuildOptions& options = {});

}  // namespace mr::wire
