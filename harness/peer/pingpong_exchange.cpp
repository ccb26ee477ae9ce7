#include "harness/peer/pingpong_exchange.h"

#include <cstdio>

#include "harness/peer/hex_fields.h"

namespace mr::peer {
namespace {

constexpr std::string_view kMessage = "ibv_rc_pingpong message";

}  // namespace

std::string format_pingpong_message(const PingpongDest& dest) {
  char text[kPingpongMessageSize] = {};
  int n = std::snprintf(text, sizeof text, "%04x:%06x:%06x:", static_cast<unsigned>(dest.lid),
                        static_cast<unsigned>(dest.qpn & 0xffffff),
                        static_cast<unsigned>(dest.psn & 0xffffff));
  for (const uint8_t b : dest.gid.bytes) {
    n += std::snprintf(text + n, sizeof text - static_cast<size_t>(n), "%02x",
                       static_cast<unsigned>(b));
  }
  return {text, sizeof text};  // the NUL included: the tool reads exactly 52 bytes
}

Expected<PingpongDest, std::string> parse_pingpong_message(std::string_view bytes) {
  if (bytes.size() != kPingpongMessageSize) {
    return Unexpected(std::string(kMessage) + ": " + std::to_string(bytes.size()) +
                      " bytes, expected " + std::to_string(kPingpongMessageSize));
  }
  const auto fields = split_fields(until_nul(bytes));
  if (fields.size() != 4) {
    return Unexpected(std::string(kMessage) + ": " + std::to_string(fields.size()) +
                      " colon-separated fields, expected 4 (lid:qpn:psn:gid)");
  }
  PingpongDest dest;
  auto lid = parse_hex_field(kMessage, "lid", fields[0], 4, 0xffff);
  if (!lid) return Unexpected(lid.error());
  auto qpn = parse_hex_field(kMessage, "qpn", fields[1], 6, 0xffffff);
  if (!qpn) return Unexpected(qpn.error());
  auto psn = parse_hex_field(kMessage, "psn", fields[2], 6, 0xffffff);
  if (!psn) return Unexpected(psn.error());
  if (fields[3].size() != 32) {
    return Unexpected(std::string(kMessage) + ": field gid: \"" + std::string(fields[3]) +
                      "\" is not 32 hex digits");
  }
  for (size_t i = 0; i < 16; ++i) {
    auto byte = parse_hex_field(kMessage, "gid", fields[3].substr(i * 2, 2), 2, 0xff);
    if (!byte) return Unexpected(byte.error());
    dest.gid.bytes[i] = static_cast<uint8_t>(*byte);
  }
  dest.lid = static_cast<uint16_t>(*lid);
  dest.qpn = static_cast<uint32_t>(*qpn);
  dest.psn = static_cast<uint32_t>(*psn);
  return dest;
}

}  // namespace mr::peer
