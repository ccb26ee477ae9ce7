// File: frame_input.h
//
// A captured frame after the decode stage: the frame's bytes, time and tester mark, and
// what the codec made of it (decoded, malformed with its error, or not judged at all).
// Decoding (headers and ICRC) needs no flow state, so it can run ahead of the analysis on
// another thread (pipelined_capture.h); the Analyzer consumes these in frame order.
//
// Usage:
//   FrameInput in;
//   decode_frame_input(frame, in);  // reuses in's storage
//   analyzer.add_input(in);
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "harness/analyze/flow.h"
#include "reference/io/capture_reader.h"
#include "reference/io/link_type.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/parse_error.h"

namespace mr::analyze {

struct FrameInput {
  enum class Kind : uint8_t {
    kUnreadableLink,  // a link type the codec does not read (io::framing_of): not RoCEv2
    kSnapped,         // captured shorter than on the wire: not judged
    kMalformed,       // `error` says why
    kDecoded,         // `decoded` holds the frame
  };
  Kind kind = Kind::kUnreadableLink;
  std::span<const uint8_t> bytes;  // borrowed from the capture's mapping
  uint64_t time_ns = 0;
  bool by_tester = false;
  // kDecoded: the frame. kMalformed: a DecodedRoce whose headers through `depth` are the
  // frame's (wire::decode_frame_into), to name the refused frame's flow and PSN.
  wire::DecodedFrame decoded;
  wire::ParseError error;
  wire::DecodeDepth depth = wire::DecodeDepth::kNone;
  // For a RoCEv2 frame: its direction and that key's hash, computed here so that the
  // analysis stage can prefetch the flow's state a few frames ahead (FlowTable::prefetch).
  DirectionKey key;
  uint64_t key_hash = 0;
};

// Decodes one captured frame into `out`, as its link type says (Ethernet or Linux cooked);
// its pcapng comment tells the tester's packets apart.
void decode_frame_input(const io::CapturedFrame& frame, FrameInput& out);
// The same for a frame's bytes alone (tests).
void decode_bytes_input(std::span<const uint8_t> bytes, uint64_t time_ns, bool by_tester,
                        FrameInput& out, wire::Framing framing = wire::Framing::kEthernet);

}  // namespace mr::analyze
