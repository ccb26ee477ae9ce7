#include "reference/wire/aeth_syndrome.h"

#include <array>
#include <cstdio>
#include <utility>

namespace mr::wire {
namespace {

constexpr std::array<std::pair<std::string_view, uint8_t>, 14> kNamed{{
    {"ACK", kSyndromeAck},
    {"RNR_NAK", rnr_nak(0)},
    {"NAK_PSN_SEQUENCE_ERROR", kNakPsnSequenceError},
    {"NAK_INVALID_REQUEST", kNakInvalidRequest},
    {"NAK_REMOTE_ACCESS_ERROR", kNakRemoteAccessError},
    {"NAK_REMOTE_OPERATIONAL_ERROR", kNakRemoteOperationalError},
    {"NAK_INVALID_RD_REQUEST", kNakInvalidRdRequest},
    // Part II (Ext QPs only); syndrome_name leaves them as hex in a base packet.
    {"NAK_TRIMMED", kNakTrimmed},
    {"NAK_TRIMMED_LAST_HOP", kNakTrimmedLastHop},
    {"NAK_PSN_OUT_OF_WINDOW", kNakPsnOutOfWindow},
    {"NAK_OP_INVALID_REQUEST", kNakOpInvalidRequest},
    {"NAK_OP_REMOTE_ACCESS", kNakOpRemoteAccess},
    {"NAK_OP_REMOTE_OPERATIONAL", kNakOpRemoteOperational},
    {"NAK_RESOURCE", kNakResource},
}};
constexpr size_t kBaseNamed = 7;  // the entries before Part II's

constexpr std::array<std::string_view, kNamed.size()> kNames = [] {
  std::array<std::string_view, kNamed.size()> out{};
  for (size_t i = 0; i < kNamed.size(); ++i) out[i] = kNamed[i].first;
  return out;
}();

std::string name_among(uint8_t s, size_t entries) {
  if (is_ack(s)) return "ACK";
  if (is_rnr_nak(s)) return "RNR_NAK";
  for (size_t i = 0; i < entries; ++i) {
    if (kNamed[i].second == s) return std::string(kNamed[i].first);  // only NAKs match here
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", s);
  return buf;
}

}  // namespace

std::span<const std::string_view> syndrome_names() { return kNames; }

std::string syndrome_name(uint8_t s) { return name_among(s, kBaseNamed); }
std::string ext_syndrome_name(uint8_t s) { return name_among(s, kNamed.size()); }

std::optional<uint8_t> syndrome_by_name(std::string_view name) {
  for (const auto& [n, value] : kNamed) {
    if (n == name) return value;
  }
  return std::nullopt;
}

}  // namespace mr::wire
