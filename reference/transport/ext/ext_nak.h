// File: ext_nak.h
//
// The extension NAK codes (spec section 22) in one table, as rxe keeps opcode facts: each
// syndrome's name, what the sender does on it, the work completion status of a failed
// operation, and whether the QP needs NONFATAL for it. An extension NAK acknowledges nothing
// (MR-NK-02); without NONFATAL the base NAKs 0x61-0x63 keep their Part I meaning (the QP enters
// Error, MR-NK-07), with it they become 0x68-0x6A and fail one operation only (22.1).
//
//   const ExtNakInfo* info = ext_nak_info(syndrome);   // null: not an extension NAK
//   uint8_t sent = responder_nak(0x62, /*nonfatal=*/true);   // 0x69
#pragma once

#include <cstdint>
#include <string_view>

namespace mr::transport::ext {

enum class NakReaction : uint8_t {
  kRetransmitPsn,           // 0x65, 0x66: that PSN only, within T_TRIM_RETX_MAX
  kRetransmitWhenInWindow,  // 0x67: that PSN once it fits the newest window
  kResyncAndFailOperation,  // 0x68-0x6A: RESYNC, complete the WR in error, keep the QP
  kRetransmitAfterBackoff,  // 0x6B: that PSN after a back-off (22.2)
};

enum class FailedOperationStatus : uint8_t {
  kNone,
  kRemoteInvalidRequest,
  kRemoteAccess,
  kRemoteOperational,
};

struct ExtNakInfo {
  uint8_t syndrome;
  std::string_view name;
  NakReaction reaction;
  FailedOperationStatus status;
  bool needs_nonfatal;
  bool congestion_signal;  // a trim: the window's on_loss, never an EV state change
};

// The entry of an extension NAK syndrome (0x65 to 0x6B), or null.
const ExtNakInfo* ext_nak_info(uint8_t syndrome);

// The syndrome an Ext responder sends for a base NAK condition 0x61-0x63: unchanged without
// NONFATAL, 0x68-0x6A with it. Other syndromes pass unchanged.
uint8_t responder_nak(uint8_t base_syndrome, bool nonfatal);

}  // namespace mr::transport::ext
