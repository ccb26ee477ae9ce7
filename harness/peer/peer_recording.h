// File: peer_recording.h
//
// How the peer records an interop run (io::RecordingLink between the reference and the
// link), so that the whole exchange between the reference peer and a tool can be judged by
// `metaroce analyze` afterwards. Frames the reference sent carry the comment "reference
// peer", frames it received "tool": neither is a tester comment, so the analyzer judges
// both sides.
//
//   auto capture = io::RecordingLink::create("run.pcapng", peer_recording(), &pcap_link);
//   ReferenceBackend backend(**capture, clock, options);   // everything crosses the capture
#pragma once

#include "reference/io/recording_link.h"

namespace mr::peer {

inline io::RecordingOptions peer_recording() {
  return {.application = "metaroce peer (issue #9)",
          .sent = "reference->tool",
          .received = "tool->reference",
          .sent_comment = "reference peer",
          .received_comment = "tool"};
}

}  // namespace mr::peer
