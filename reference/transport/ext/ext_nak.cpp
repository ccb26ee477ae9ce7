// File: ext_nak.cpp
#include "reference/transport/ext/ext_nak.h"

#include <array>

namespace mr::transport::ext {
namespace {

using enum NakReaction;
using enum FailedOperationStatus;

constexpr std::array<ExtNakInfo, 7> kExtNaks{{
    {0x65, "TRIMMED", kRetransmitPsn, kNone, false, true},
    {0x66, "TRIMMED_LAST_HOP", kRetransmitPsn, kNone, false, true},
    {0x67, "PSN_OUT_OF_WINDOW", kRetransmitWhenInWindow, kNone, false, false},
    {0x68, "OP_INVALID_REQUEST", kResyncAndFailOperation, kRemoteInvalidRequest, true, false},
    {0x69, "OP_REMOTE_ACCESS", kResyncAndFailOperation, kRemoteAccess, true, false},
    {0x6A, "OP_REMOTE_OPERATIONAL", kResyncAndFailOperation, kRemoteOperational, true, false},
    {0x6B, "RESOURCE", kRetransmitAfterBackoff, kNone, true, false},
}};

}  // namespace

const ExtNakInfo* ext_nak_info(uint8_t syndrome) {
  for (const ExtNakInfo& info : kExtNaks) {
    if (info.syndrome == syndrome) return &info;
  }
  return nullptr;
}

uint8_t responder_nak(uint8_t base_syndrome, bool nonfatal) {
  if (nonfatal && base_syndrome >= 0x61 && base_syndrome <= 0x63)
    return static_cast<uint8_t>(base_syndrome + 7);  // 0x61 -> 0x68, 0x62 -> 0x69, 0x63 -> 0x6A
  return base_syndrome;
}

}  // namespace mr::transport::ext
