// File: link_type.h
//
// What a capture's link type (the LINKTYPE_ number of a pcap file header or of a pcapng
// interface) means to the codec: Ethernet, or a Linux cooked capture, which `tcpdump -i
// any` writes (SLL, or SLL2 since libpcap 1.10). Any other link type is one metaroce cannot
// read, and declaring it is an error naming the file, the link type's number and name: a
// capture that was never read must not pass for one without violations, nor for an empty one.
//
// Usage:
//   auto reader = open_for_decoding(path);  // refuses "x.pcap: byte 20: link type 101 ..."
//   ...
//   auto framing = framing_of(path, frame);
//   if (!framing) return Unexpected(framing.error());  // "x.pcap: byte 24: link type 101 ..."
//   wire::decode_frame(frame.data, *framing);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reference/error/expected.h"
#include "reference/io/capture_reader.h"
#include "reference/wire/frame_decoder.h"

namespace mr::io {

inline constexpr uint32_t kLinkTypeLinuxSll = 113;
inline constexpr uint32_t kLinkTypeLinuxSll2 = 276;

// The framing of a link type the codec reads, else nullopt.
std::optional<wire::Framing> framing_of(uint32_t link_type);

// tcpdump.org's name for a link type, "LINKTYPE_LINUX_SLL2"; "an unassigned link type" for a
// number it does not know.
std::string link_type_name(uint32_t link_type);

// The framing of `frame` (read from `file`), or the error refusing its link type, at the
// frame's record: "link type 101 (LINKTYPE_RAW) of interface 0 is not one metaroce reads ...".
Expected<wire::Framing, CaptureError> framing_of(const std::string& file,
                                                 const CapturedFrame& frame);

// Why `link_type` (of pcapng interface `interface`; none for a pcap file) is refused, or
// nullopt when framing_of reads it: a CaptureReader's LinkTypeCheck.
std::optional<std::string> refused_link_type(uint32_t link_type, std::optional<uint32_t> interface);

// A capture opened to be decoded: a link type framing_of does not read is refused where the
// file declares it (the pcap file header, a pcapng interface description), before any frame
// and whether or not the file has frames, with the error framing_of gives a frame of it
// (CaptureError::Cause::kLinkType).
Expected<CaptureReader, CaptureError> open_for_decoding(const std::string& path);

}  // namespace mr::io
