// File: frame_decoder.h
//
// Bytes from the wire to headers. Wire input is hostile: every read is bounds-checked and
// any inconsistency (lengths that disagree, a pad count larger than the payload, headers
// the opcode implies but the packet lacks, payload on an opcode that carries none) comes
// back as a ParseError naming the header, the field and the byte offset.
//
// A frame that is well-formed but not RoCEv2 (ARP, TCP, UDP to another port) is not an
// error: it decodes to NotRoce, saying what it is.
//
// A frame starts with an Ethernet header, or, in a Linux cooked capture (`tcpdump -i
// any`), with an SLL or SLL2 header whose protocol field says what follows (Framing). A
// frame the decoder refuses comes back as a MalformedFrame: the headers it read whole
// before the error (tshark's "layers so far, then [Malformed]"), and the error.
//
// Usage:
//   auto d = decode_frame(bytes);
//   if (!d) log(d.error().to_string());
//   else if (auto* roce = std::get_if<DecodedRoce>(&*d)) use(roce->packet);
//
//   auto c = decode_frame(bytes, Framing::kLinuxSll2);
//   if (!c) c.error().for_each_parsed_header([](const auto& h) { show(h); });
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/cooked_linux.h"
#include "reference/wire/parse_error.h"
#include "reference/wire/roce_packet.h"

namespace mr::wire {

struct NotRoce {
  std::string_view what;  // "ethertype", "ip protocol", "udp port", "ip fragment", ...
  uint32_t value = 0;     // the value that made it so
  std::string to_string() const;
};

// What a frame starts with: an Ethernet header, or a Linux cooked capture's header.
enum class Framing : uint8_t { kEthernet, kLinuxSll, kLinuxSll2 };

struct DecodedRoce {
  // packet.eth is the frame's Ethernet header; in a cooked frame, which has none, it is
  // zero but for `type`, the cooked header's protocol.
  RocePacket packet;
  // The cooked header that stands in for Ethernet (Framing::kLinuxSll, kLinuxSll2).
  std::variant<std::monostate, CookedLinux, CookedLinuxV2> cooked;
  bool opcode_known = true;  // false: BTH opcode not in the table; rest shown as payload
  uint32_t icrc_computed = 0;
  size_t l3_offset = 0;         // frame offset of the IP header
  size_t transport_offset = 0;  // frame offset of the BTH
  bool icrc_ok() const { return packet.icrc == icrc_computed; }

  // Calls f(header) for each header present, in wire order: the link header (Ether or the
  // cooked one), then packet.for_each_header_after_ether.
  template <class F>
  void for_each_header(F&& f) const {
    for_each_link_header(f);
    packet.for_each_header_after_ether(f);
  }
  template <class F>
  void for_each_link_header(F&& f) const {
    if (const auto* sll = std::get_if<CookedLinux>(&cooked)) {
      f(*sll);
    } else if (const auto* sll2 = std::get_if<CookedLinuxV2>(&cooked)) {
      f(*sll2);
    } else {
      f(packet.eth);
    }
  }
};

using DecodedFrame = std::variant<NotRoce, DecodedRoce>;

// How far a refused frame was read: every layer up to this one was read whole.
enum class DecodeDepth : uint8_t {
  kNone,  // not even the link header
  kLink,  // Ether or the cooked header, and the 802.1Q tag if there is one
  kIp,    // ... the IPv4 or IPv6 header
  kUdp,   // ... the UDP header
  kBth,   // ... the BTH and the extended headers present (each read whole)
};

// Why the hot-path form refused a frame: the error, and how far `out` holds the frame.
struct DecodeError {
  ParseError error;
  DecodeDepth depth = DecodeDepth::kNone;
};

// A frame the decoder refused, as far as it read it: the headers before the error, and the
// error. Headers deeper than `depth` hold nothing meaningful; for_each_parsed_header skips
// them.
struct MalformedFrame {
  DecodedRoce parsed;
  DecodeDepth depth = DecodeDepth::kNone;
  ParseError error;

  std::string to_string() const { return error.to_string(); }
  // The BTH when it was read whole, else null.
  const Bth* bth() const { return depth >= DecodeDepth::kBth ? &parsed.packet.bth : nullptr; }
  // Calls f(header) for each header read whole before the error, in wire order.
  template <class F>
  void for_each_parsed_header(F&& f) const {
    const RocePacket& p = parsed.packet;
    if (depth < DecodeDepth::kLink) return;
    parsed.for_each_link_header(f);
    if (p.vlan) f(*p.vlan);
    if (depth < DecodeDepth::kIp) return;
    std::visit(f, p.ip);
    if (depth < DecodeDepth::kUdp) return;
    f(p.udp);
    if (depth < DecodeDepth::kBth) return;
    f(p.bth);
    p.for_each_extension(f);
  }
};

// An Ethernet frame; the error alone when refused.
Expected<DecodedFrame, ParseError> decode_frame(std::span<const uint8_t> frame);

// A frame of any framing; a refused one comes back with the headers read before the error.
Expected<DecodedFrame, MalformedFrame> decode_frame(std::span<const uint8_t> frame,
                                                    Framing framing);

// The decoded payload and pad view the frame's bytes, so a temporary frame would leave them
// dangling: decoding one does not compile (decode_frame_into's too, below).
Expected<DecodedFrame, ParseError> decode_frame(std::vector<uint8_t>&& frame) = delete;
Expected<DecodedFrame, MalformedFrame> decode_frame(std::vector<uint8_t>&& frame,
                                                    Framing framing) = delete;

// The hot-path form for streaming many frames: decodes into `out`, reusing its storage.
// On error, `out` holds a DecodedRoce whose headers through the error's depth are the
// frame's (what MalformedFrame::parsed holds).
Expected<void, DecodeError> decode_frame_into(std::span<const uint8_t> frame, Framing framing,
                                              DecodedFrame& out);
Expected<void, DecodeError> decode_frame_into(std::vector<uint8_t>&& frame, Framing framing,
                                              DecodedFrame& out) = delete;

}  // namespace mr::wire
