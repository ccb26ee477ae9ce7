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
  // RFC 768 checksum over the pseudo-header and the datagram, ICRC included (the ICRC masks
  // this field, so the two do not depend on each other). RoCEv2 senders write 0 instead,
  // which is why this is off and p.udp.chksum is written as given by default.
  bool fill_udp_checksum = false;
};

std::vector<uint8_t> build_frame(const RocePacket& p, const BuildOptions& options = {});

}  // namespace mr::wire
