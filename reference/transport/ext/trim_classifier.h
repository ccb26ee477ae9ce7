// File: trim_classifier.h
//
// How an Ext receiver with TRIM enabled reads a packet that may have been trimmed (spec
// section 23): by what it holds, never by its length fields alone (switches differ in whether
// they rewrite the IP and UDP lengths). A trim mark is the DSCP V_TRIM_DSCP or
// V_TRIM_DSCP_LASTHOP.
//   - marked, whole (at least the bytes its IP length says) and a correct ICRC: remarked, not
//     cut: an ordinary packet whose ACK or NAK carries TRM = 1 (MR-TR-12);
//   - marked otherwise: trimmed: no ICRC check, no IPv4 checksum check (MR-TR-14);
//   - unmarked and short of its IP length: truncated, silently discarded (or, MR-TR-07,
//     trimmed);
//   - anything else: ordinary. Without TRIM every packet is ordinary (MR-TR-08).
// A trimmed request is answered by NAK 0x65 (0x66 for the last-hop mark) only when its BTH and
// MXH are intact and its PSN is new and inside the window; otherwise it is discarded
// silently (MR-TR-04, MR-TR-10, MR-TR-11); it is never placed or recorded (MR-TR-03).
#pragma once

#include <cstdint>
#include <optional>

#include "reference/transport/ext/received_psn_window.h"

namespace mr::transport::ext {

struct TrimParameters {
  bool enabled = false;               // TRIM negotiated
  uint8_t trim_dscp = 10;             // V_TRIM_DSCP
  uint8_t trim_dscp_lasthop = 11;     // V_TRIM_DSCP_LASTHOP
  bool truncated_as_trimmed = false;  // MR-TR-07 (MAY)
  // A trimmed request with fewer IP bytes is discarded: 0, since the headers decide
  // (MR-TR-09); only the ext-short-trim-discarded mutant sets it.
  uint32_t min_ip_bytes = 0;
};

enum class TrimClass : uint8_t { kOrdinary, kRemarked, kTrimmed, kTruncated };

struct HeldPacket {
  uint8_t dscp = 0;
  uint32_t ip_bytes_held = 0;    // the IP packet's bytes actually received
  uint32_t ip_length_field = 0;  // what its IPv4 total length / IPv6 header + payload length says
  bool icrc_ok = false;          // only meaningful for a whole packet
};

TrimClass classify_trim(const HeldPacket& p, const TrimParameters& t);

// The NAK a trimmed request draws: 0x65, 0x66 (last hop), or none (discard silently).
std::optional<uint8_t> trimmed_request_nak(const HeldPacket& p, const TrimParameters& t,
                                           bool headers_intact, PsnArrival arrival);

}  // namespace mr::transport::ext
