// File: frame_builder.h
//
// Headers to bytes. By default the builder fills what a sender computes (IP and UDP
// lengths, IPv4 header checksum, ICRC) and writes every other field as given, so a test
// can craft any packet, including wrong ones: switch a fill off to keep the given value.
//
// Usage:
//   RocePacket p;  p.bth.opcode = kOpRcSendOnly;  p.payload = bytes;
//   std::vector<uint8_t> frame = build_frame(p);
//
// A sender's data path builds into a buffer it reuses and gives the payload as pieces of its
// memory regions, so each payload byte is copied once, from the region into the frame:
//   build_frame_into(p, options, buffer, pieces);
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "reference/wire/roce_packet.h"

namespace mr::wire {

struct BuildOptions {
  bool fill_ip_length = true;    // IPv4 total length / IPv6 payload length
  bool fill_udp_length = true;   // UDP length
  bool fill_ip_checksum = true;  // IPv4 header checksum
  bool fill_padding = false;     // padcount = (-payload) & 3 and zero pad bytes, ignoring p.pad
  bool fill_icrc = true;         // otherwise p.icrc is written as given
  // RFC 768 checksum over the pseudo-header and the datagram, ICRC included (the ICRC masks
  // this field, so the two do not depend on each other). RoCEv2 senders write 0 instead,
  // which is why this is off and p.udp.chksum is written as given by default.
  bool fill_udp_checksum = false;
};

// A payload in pieces written one after another: the part of a work request's gather list one
// packet carries, resolved to memory.
using PayloadPieces = std::span<const std::span<const uint8_t>>;

std::vector<uint8_t> build_frame(const RocePacket& p, const BuildOptions& options = {});

// The payload's size: the pieces' when given, else p.payload's (what build_frame_into writes).
size_t payload_size(const RocePacket& p, PayloadPieces pieces);

// The same into `out`, resized to the frame (its capacity reused: no allocation once it is
// large enough). With `pieces`, the payload is their bytes and p.payload is not read.
void build_frame_into(const RocePacket& p, const BuildOptions& options, std::vector<uint8_t>& out,
                      PayloadPieces pieces = {});

}  // namespace mr::wire
