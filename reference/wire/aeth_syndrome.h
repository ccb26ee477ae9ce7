// File: aeth_syndrome.h
//
// The AETH syndrome byte (IBTA 9.3.5, table 44): bit 7 reserved, bits 6:5 the type
// (00 ACK, 01 RNR NAK, 10 reserved, 11 NAK), bits 4:0 the value (ACK: credit count;
// RNR NAK: timer code; NAK: the NAK code). Every syndrome in the code base is named here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mr::wire {

enum class SyndromeType : uint8_t { kAck = 0, kRnrNak = 1, kReserved = 2, kNak = 3 };

inline constexpr uint8_t kSyndromeValueMask = 0x1f;
// Bits 7:5 in place, the reserved bit included, for the is_* tests below.
inline constexpr uint8_t kSyndromeClassMask = 0xe0;
inline constexpr uint8_t kSyndromeClassAck = 0x00;
inline constexpr uint8_t kSyndromeClassRnrNak = 0x20;
inline constexpr uint8_t kSyndromeClassNak = 0x60;

// Credit count 31 is "invalid": the responder does no end-to-end flow control. rxe sends no
// other ACK.
inline constexpr uint8_t kAckCreditInvalid = 0x1f;

// The NAK codes (type 11).
inline constexpr uint8_t kNakPsnSequenceError = 0x60;
inline constexpr uint8_t kNakInvalidRequest = 0x61;
inline constexpr uint8_t kNakRemoteAccessError = 0x62;
inline constexpr uint8_t kNakRemoteOperationalError = 0x63;
inline constexpr uint8_t kNakInvalidRdRequest = 0x64;
// Part II's NAK codes (spec section 22), defined for Ext QPs only (reserved in base mode):
// 0x65-0x67 on every Ext QP, 0x68-0x6B with NONFATAL.
inline constexpr uint8_t kNakTrimmed = 0x65;
inline constexpr uint8_t kNakTrimmedLastHop = 0x66;
inline constexpr uint8_t kNakPsnOutOfWindow = 0x67;
inline constexpr uint8_t kNakOpInvalidRequest = 0x68;
inline constexpr uint8_t kNakOpRemoteAccess = 0x69;
inline constexpr uint8_t kNakOpRemoteOperational = 0x6a;
inline constexpr uint8_t kNakResource = 0x6b;

// Bits 6:5 only: the type a reader takes from a syndrome whatever its reserved bit.
constexpr SyndromeType syndrome_type(uint8_t s) {
  return static_cast<SyndromeType>((s >> 5) & 0x3);
}
// Bits 4:0: credit count, RNR timer code or NAK code.
constexpr uint8_t syndrome_value(uint8_t s) { return s & kSyndromeValueMask; }

// Strict tests: a syndrome with the reserved bit 7 set is none of these.
constexpr bool is_ack(uint8_t s) { return (s & kSyndromeClassMask) == kSyndromeClassAck; }
constexpr bool is_rnr_nak(uint8_t s) { return (s & kSyndromeClassMask) == kSyndromeClassRnrNak; }
constexpr bool is_nak(uint8_t s) { return (s & kSyndromeClassMask) == kSyndromeClassNak; }

constexpr uint8_t ack(uint8_t credit) { return kSyndromeClassAck | (credit & kSyndromeValueMask); }
constexpr uint8_t rnr_nak(uint8_t timer) {
  return kSyndromeClassRnrNak | (timer & kSyndromeValueMask);
}

// The ACK the reference responder sends.
inline constexpr uint8_t kSyndromeAck = ack(kAckCreditInvalid);

// Text for a syndrome: "ACK" (any credit), "RNR_NAK" (any timer), "NAK_PSN_SEQUENCE_ERROR" ..
// "NAK_INVALID_RD_REQUEST", or "0xNN" for a reserved value. The names test scripts use.
std::string syndrome_name(uint8_t s);
// The same in an Ext packet, where 0x65-0x6B have Part II's names ("NAK_TRIMMED" ..
// "NAK_RESOURCE", as the Scapy layer names them).
std::string ext_syndrome_name(uint8_t s);
// The syndrome a name stands for when a packet is built: ACK is kSyndromeAck, RNR_NAK the
// RNR NAK with timer code 0, a NAK name its code (Part II's names too: a tester may send
// them to a base DUT). nullopt for any other name.
std::optional<uint8_t> syndrome_by_name(std::string_view name);
// Every name syndrome_by_name knows, for a parser's did-you-mean.
std::span<const std::string_view> syndrome_names();

}  // namespace mr::wire
