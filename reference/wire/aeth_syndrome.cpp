#include "reference/wire/aeth_syndrome.h"

#include <array>
#include <cstdio>
#include <utility>

namespace mr::wire {
namespace {

constexpr std::array<std::pair<std::string_view, uint8_t>, 7> kNamed{{
    {"ACK", kSyndromeAck},
    {"RNR_NAK", rnr_nak(0)},
    {"NAK_PSN_SEQUENCE_ERROR", kNakPsnSequenceError},
    {"NAK_INVALID_REQUEST", kNakInvalidRequest},
    {"NAK_REMOTE_ACCESS_ERROR", kNakRemoteAccessError},
    {"NAK_REMOTE_OPERATIONAL_ERROR", kNakRemoteOperationalError},
    {"NAK_INVALID_RD_REQUEST", kNakInvalidRdRequest},
}};

constexpr std::array<std::string_view, kNamed.size()> kNames = [] {
  std::array<std::string_view, kNamed.size()> out{};
  for (size_t i = 0; i < kNamed.size(); ++i) out[i] = kNamed[i].first;
  return out;
}();

}  // namespace

std::span<const std::string_view> syndrome_names() { return kNames; }

std::string syndrome_name(uint8_t s) {
  if (is_ack(s)) return "ACK";
  if (is_rnr_nak(s)) return "RNR_NAK";
  for (const auto& [name, value] : kNamed) {
    if (value == s) return std::string(name);  // only the NAK entries are left to match
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", s);
  return buf;
}

std::optional<uint8_t> syndrome_by_name(std::string_view name) {
  for (const auto& [n, value] : kNamed) {
    if (n == name) return value;
  }
  return std::nullopt;
}

}  // namespace mr::wire
