// File: trim_classifier.cpp
#include "reference/transport/ext/trim_classifier.h"

namespace mr::transport::ext {

TrimClass classify_trim(const HeldPacket& p, const TrimParameters& t) {
  if (!t.enabled) return TrimClass::kOrdinary;
  const bool marked = p.dscp == t.trim_dscp || p.dscp == t.trim_dscp_lasthop;
  const bool whole = p.ip_bytes_held >= p.ip_length_field;
  if (marked) return whole && p.icrc_ok ? TrimClass::kRemarked : TrimClass::kTrimmed;
  if (!whole) return t.truncated_as_trimmed ? TrimClass::kTrimmed : TrimClass::kTruncated;
  return TrimClass::kOrdinary;
}

std::optional<uint8_t> trimmed_request_nak(const HeldPacket& p, const TrimParameters& t,
                                           bool headers_intact, PsnArrival arrival) {
  if (!headers_intact || arrival != PsnArrival::kNew || p.ip_bytes_held < t.min_ip_bytes)
    return std::nullopt;
  return p.dscp == t.trim_dscp_lasthop ? uint8_t{0x66} : uint8_t{0x65};
}

}  // namespace mr::transport::ext
