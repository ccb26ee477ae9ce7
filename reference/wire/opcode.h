// File: opcode.h
//
// Every fact about a BTH opcode in one constexpr table, as Linux rxe's rxe_opcode.c keeps
// them: which extended headers follow the BTH, where the packet sits in a message, whether
// it carries payload. Code asks `info.has(kReth)` or `info.is(kRead)` instead of switching
// on opcode lists. Names are generated from transport + operation, never typed twice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mr::wire {

// Extended transport headers, in the order they follow the BTH on the wire.
enum HeaderBit : uint16_t {
  kRdeth = 1 << 0,
  kDeth = 1 << 1,
  kFeth = 1 << 2,
  kReth = 1 << 3,
  kAtomicEth = 1 << 4,
  kImmDt = 1 << 5,
  kIeth = 1 << 6,
  kAeth = 1 << 7,
  kAtomicAckEth = 1 << 8,
  kCnpPadding = 1 << 9,
};

// What the packet is and where it sits in its message.
enum OpcodeFlag : uint32_t {
  kFirst = 1 << 0,
  kMiddle = 1 << 1,
  kLast = 1 << 2,
  kOnly = 1 << 3,
  kPayload = 1 << 4,  // may carry payload
  kRequest = 1 << 5,
  kResponse = 1 << 6,
  kSend = 1 << 7,
  kWrite = 1 << 8,
  kRead = 1 << 9,
  kAtomic = 1 << 10,
  kAck = 1 << 11,
  kImmediate = 1 << 12,
  kInvalidate = 1 << 13,
  kFlush = 1 << 14,
  kCnp = 1 << 15,
  kStart = kFirst | kOnly,  // begins a message
  kEnd = kLast | kOnly,     // ends a message
};

enum class Transport : uint8_t { kRc = 0, kUc = 1, kRd = 2, kUd = 3, kCnp = 4, kXrc = 5 };

struct OpcodeInfo {
  uint8_t value = 0;
  Transport transport = Transport::kRc;
  std::string_view operation;   // "SEND_FIRST"; the full name adds the transport prefix
  uint16_t headers = 0;         // HeaderBit set
  uint32_t flags = 0;           // OpcodeFlag set
  uint8_t extension_bytes = 0;  // bytes of extended headers between the BTH and the payload

  constexpr bool has(HeaderBit h) const { return (headers & h) != 0; }
  constexpr bool is(uint32_t f) const { return (flags & f) != 0; }
  constexpr unsigned header_bytes() const { return extension_bytes; }
  // Scapy's name: "RC_SEND_FIRST", "UD_SEND_ONLY", "CNP".
  std::string name() const;
};

// The table entry for an opcode, or nullptr for reserved and unknown values.
const OpcodeInfo* opcode_info(uint8_t opcode);
// Reverse lookup by Scapy name ("RC_ACKNOWLEDGE"); nullopt when there is no such opcode.
std::optional<uint8_t> opcode_by_name(std::string_view name);
// Name for any value: the table name, or "0xNN" for unknown opcodes.
std::string opcode_name(uint8_t opcode);

// Well-known values used across the code base.
inline constexpr uint8_t kOpRcSendOnly = 0x04;
inline constexpr uint8_t kOpRcAcknowledge = 0x11;
inline constexpr uint8_t kOpCnp = 0x81;
inline constexpr uint16_t kRoceV2Port = 4791;

}  // namespace mr::wire
