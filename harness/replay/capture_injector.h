// File: capture_injector.h
//
// A capture's frames put back on a link unchanged, as tcpreplay does: every frame, or only
// the frames of one connection (the one extract_connection picks), paced as recorded or as
// fast as the link takes them. Nothing is rewritten: no DUT is set up and none answers.
// `metaroce replay FILE --inject IF` runs it on a PcapLink, the same send path the harness
// injects every frame through toward a remote DUT.
//
// Usage:
//   auto r = inject_capture_onto("trace.pcapng", "mrt0", {.fast = true});
//   if (!r) fail(r.error());   // "trace.pcapng: byte 1234: ..." or "mrt0: ... refused ..."
//   report(r->sent, r->elapsed_ns);
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/link.h"

namespace mr::replay {

struct InjectOptions {
  std::optional<size_t> connection = {};  // only this connection's frames; all when empty
  bool fast = false;                      // as fast as possible instead of as recorded
  // A longer gap between two recorded frames is shortened to this, so that a capture with
  // an idle hour does not hold the replay for an hour.
  uint64_t max_gap_ns = 10'000'000'000;
  // How long the link may refuse a frame (a full send queue) before the replay gives up.
  uint64_t stall_limit_ns = 1'000'000'000;
};

struct InjectResult {
  uint64_t frames_in_capture = 0;
  uint64_t selected = 0;    // frames chosen for injection
  uint64_t sent = 0;        // frames the link accepted
  uint64_t elapsed_ns = 0;  // from the first send to the end of the last, CLOCK_MONOTONIC
};

Expected<InjectResult, std::string> inject_capture(const std::string& path, io::Link& link,
                                                   const InjectOptions& options = {});

// Opens a PcapLink on `interface` (in the caller's network namespace) and injects onto it.
Expected<InjectResult, std::string> inject_capture_onto(const std::string& path,
                                                        const std::string& interface,
                                                        const InjectOptions& options = {});

}  // namespace mr::replay
