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
  // Part II (spec table 19.1), in the same wire order: SECH directly after the BTH, MXH
  // before RETH, SACKETH after AETH and AtomicAckETH.
  kSech = 1 << 10,
  kMxh = 1 << 11,
  kSacketh = 1 << 12,
  kCreth = 1 << 13,
  kRsyneth = 1 << 14,
};

// Which table gives the headers after a BTH: Part I for TVer 0 (and any TVer but 1, as a
// base decoder reads them), table 19.1 for TVer 1, and table 19.1 behind a SECH when the
// BTH's SX bit says so (spec section 19.4).
enum class HeaderSet : uint8_t { kBase, kExt, kExtSecure };

// BTH TVer of every Ext packet (MR-EX-04), and the Ver of MXH, CRETH and SECH.
inline constexpr unsigned kExtVersion = 1;

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
  kProbe = 1 << 16,         // Part II: PROBE (section 25.2)
  kCredit = 1 << 17,        // Part II: CREDIT (section 26.8)
  kResync = 1 << 18,        // Part II: RESYNC (section 22.3)
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
// The same in the table of `set`: table 19.1 knows the RC operations up to SEND WITH
// INVALIDATE and PROBE, CREDIT, RESYNC; UC, RD, UD, FLUSH and ATOMIC WRITE have no Ext form.
const OpcodeInfo* opcode_info(uint8_t opcode, HeaderSet set);
// Reverse lookup by Scapy name ("RC_ACKNOWLEDGE", and the Ext-only RC_PROBE, RC_CREDIT,
// RC_RESYNC); nullopt when there is no such opcode.
std::optional<uint8_t> opcode_by_name(std::string_view name);
// Name for any value: the table name, or "0xNN" for unknown opcodes.
std::string opcode_name(uint8_t opcode);
std::string opcode_name(uint8_t opcode, HeaderSet set);

// Opcode values (IBTA table 37), named as Scapy names them: kOpRcSendFirst is
// "RC_SEND_FIRST". Bits 7:5 select the transport and bits 4:0 the operation; UC and RD
// opcodes are the transport bits over RC's operation codes, so each value is written once.
inline constexpr uint8_t kOpTransportMask = 0xe0;
inline constexpr uint8_t kOpTransportRc = 0x00;
inline constexpr uint8_t kOpTransportUc = 0x20;
inline constexpr uint8_t kOpTransportRd = 0x40;
inline constexpr uint8_t kOpTransportUd = 0x60;

inline constexpr uint8_t kOpRcSendFirst = 0x00;
inline constexpr uint8_t kOpRcSendMiddle = 0x01;
inline constexpr uint8_t kOpRcSendLast = 0x02;
inline constexpr uint8_t kOpRcSendLastWithImmediate = 0x03;
inline constexpr uint8_t kOpRcSendOnly = 0x04;
inline constexpr uint8_t kOpRcSendOnlyWithImmediate = 0x05;
inline constexpr uint8_t kOpRcRdmaWriteFirst = 0x06;
inline constexpr uint8_t kOpRcRdmaWriteMiddle = 0x07;
inline constexpr uint8_t kOpRcRdmaWriteLast = 0x08;
inline constexpr uint8_t kOpRcRdmaWriteLastWithImmediate = 0x09;
inline constexpr uint8_t kOpRcRdmaWriteOnly = 0x0a;
inline constexpr uint8_t kOpRcRdmaWriteOnlyWithImmediate = 0x0b;
inline constexpr uint8_t kOpRcRdmaReadRequest = 0x0c;
inline constexpr uint8_t kOpRcRdmaReadResponseFirst = 0x0d;
inline constexpr uint8_t kOpRcRdmaReadResponseMiddle = 0x0e;
inline constexpr uint8_t kOpRcRdmaReadResponseLast = 0x0f;
inline constexpr uint8_t kOpRcRdmaReadResponseOnly = 0x10;
inline constexpr uint8_t kOpRcAcknowledge = 0x11;
inline constexpr uint8_t kOpRcAtomicAcknowledge = 0x12;
inline constexpr uint8_t kOpRcCompareSwap = 0x13;
inline constexpr uint8_t kOpRcFetchAdd = 0x14;
inline constexpr uint8_t kOpRcSendLastWithInvalidate = 0x16;
inline constexpr uint8_t kOpRcSendOnlyWithInvalidate = 0x17;
inline constexpr uint8_t kOpRcFlush = 0x1c;
inline constexpr uint8_t kOpRcAtomicWrite = 0x1d;

// UC: RC's SEND and RDMA WRITE operations only.
inline constexpr uint8_t kOpUcSendFirst = kOpTransportUc | kOpRcSendFirst;
inline constexpr uint8_t kOpUcSendMiddle = kOpTransportUc | kOpRcSendMiddle;
inline constexpr uint8_t kOpUcSendLast = kOpTransportUc | kOpRcSendLast;
inline constexpr uint8_t kOpUcSendLastWithImmediate = kOpTransportUc | kOpRcSendLastWithImmediate;
inline constexpr uint8_t kOpUcSendOnly = kOpTransportUc | kOpRcSendOnly;
inline constexpr uint8_t kOpUcSendOnlyWithImmediate = kOpTransportUc | kOpRcSendOnlyWithImmediate;
inline constexpr uint8_t kOpUcRdmaWriteFirst = kOpTransportUc | kOpRcRdmaWriteFirst;
inline constexpr uint8_t kOpUcRdmaWriteMiddle = kOpTransportUc | kOpRcRdmaWriteMiddle;
inline constexpr uint8_t kOpUcRdmaWriteLast = kOpTransportUc | kOpRcRdmaWriteLast;
inline constexpr uint8_t kOpUcRdmaWriteLastWithImmediate =
    kOpTransportUc | kOpRcRdmaWriteLastWithImmediate;
inline constexpr uint8_t kOpUcRdmaWriteOnly = kOpTransportUc | kOpRcRdmaWriteOnly;
inline constexpr uint8_t kOpUcRdmaWriteOnlyWithImmediate =
    kOpTransportUc | kOpRcRdmaWriteOnlyWithImmediate;

// RD: RC's operations up to FETCH_ADD.
inline constexpr uint8_t kOpRdSendFirst = kOpTransportRd | kOpRcSendFirst;
inline constexpr uint8_t kOpRdSendMiddle = kOpTransportRd | kOpRcSendMiddle;
inline constexpr uint8_t kOpRdSendLast = kOpTransportRd | kOpRcSendLast;
inline constexpr uint8_t kOpRdSendLastWithImmediate = kOpTransportRd | kOpRcSendLastWithImmediate;
inline constexpr uint8_t kOpRdSendOnly = kOpTransportRd | kOpRcSendOnly;
inline constexpr uint8_t kOpRdSendOnlyWithImmediate = kOpTransportRd | kOpRcSendOnlyWithImmediate;
inline constexpr uint8_t kOpRdRdmaWriteFirst = kOpTransportRd | kOpRcRdmaWriteFirst;
inline constexpr uint8_t kOpRdRdmaWriteMiddle = kOpTransportRd | kOpRcRdmaWriteMiddle;
inline constexpr uint8_t kOpRdRdmaWriteLast = kOpTransportRd | kOpRcRdmaWriteLast;
inline constexpr uint8_t kOpRdRdmaWriteLastWithImmediate =
    kOpTransportRd | kOpRcRdmaWriteLastWithImmediate;
inline constexpr uint8_t kOpRdRdmaWriteOnly = kOpTransportRd | kOpRcRdmaWriteOnly;
inline constexpr uint8_t kOpRdRdmaWriteOnlyWithImmediate =
    kOpTransportRd | kOpRcRdmaWriteOnlyWithImmediate;
inline constexpr uint8_t kOpRdRdmaReadRequest = kOpTransportRd | kOpRcRdmaReadRequest;
inline constexpr uint8_t kOpRdRdmaReadResponseFirst = kOpTransportRd | kOpRcRdmaReadResponseFirst;
inline constexpr uint8_t kOpRdRdmaReadResponseMiddle = kOpTransportRd | kOpRcRdmaReadResponseMiddle;
inline constexpr uint8_t kOpRdRdmaReadResponseLast = kOpTransportRd | kOpRcRdmaReadResponseLast;
inline constexpr uint8_t kOpRdRdmaReadResponseOnly = kOpTransportRd | kOpRcRdmaReadResponseOnly;
inline constexpr uint8_t kOpRdAcknowledge = kOpTransportRd | kOpRcAcknowledge;
inline constexpr uint8_t kOpRdAtomicAcknowledge = kOpTransportRd | kOpRcAtomicAcknowledge;
inline constexpr uint8_t kOpRdCompareSwap = kOpTransportRd | kOpRcCompareSwap;
inline constexpr uint8_t kOpRdFetchAdd = kOpTransportRd | kOpRcFetchAdd;

// UD: the single-packet SENDs.
inline constexpr uint8_t kOpUdSendOnly = kOpTransportUd | kOpRcSendOnly;
inline constexpr uint8_t kOpUdSendOnlyWithImmediate = kOpTransportUd | kOpRcSendOnlyWithImmediate;

// RoCEv2 Annex A17's congestion notification packet.
inline constexpr uint8_t kOpCnp = 0x81;

// Part II opcodes, defined under TVer 1 only (spec section 19.1).
inline constexpr uint8_t kOpExtProbe = 0x18;
inline constexpr uint8_t kOpExtCredit = 0x19;
inline constexpr uint8_t kOpExtResync = 0x1a;

inline constexpr uint16_t kRoceV2Port = 4791;

}  // namespace mr::wire
