#include "harness/analyze/malformed.h"

#include <cstdio>
#include <cstring>
#include <variant>

#include "harness/analyze/flow.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {

std::string_view clause_for(const wire::ParseError& e, std::span<const uint8_t> frame) {
  if (e.header == "IP" || e.header == "IPv6" || e.header == "UDP") return "MR-WF-07";
  // A Part II header the BTH (TVer 1, SX) implies but the packet cannot hold: the header set
  // of table 19.1.
  for (std::string_view ext : {"SECH", "MXH", "SACKETH", "CRETH", "RSYNETH", "SecTag"}) {
    if (e.header == ext) return "MR-EX-06";
  }
  const bool ack = e.header == "BTH" && (e.field == "padcount" || e.field == "opcode") &&
                   e.offset < frame.size() &&
                   frame[e.offset - (e.field == "padcount" ? 1 : 0)] == wire::kOpRcAcknowledge;
  if (ack) return "MR-AK-14";
  if (e.header == "BTH" && e.field == "padcount") return "MR-WF-06";
  return "MR-WF-10";
}

std::string raw_ip_pair(std::span<const uint8_t> f, std::string* src) {
  size_t at = 12;
  if (f.size() < at + 2) return "?";
  uint16_t type = static_cast<uint16_t>(f[at] << 8 | f[at + 1]);
  if (type == 0x8100) {
    at += 4;
    if (f.size() < at + 2) return "?";
    type = static_cast<uint16_t>(f[at] << 8 | f[at + 1]);
  }
  const size_t l3 = at + 2;
  IpAddress s;
  IpAddress d;
  if (type == 0x0800 && f.size() >= l3 + 20) {
    for (size_t i = 0; i < 4; ++i) {
      s.bytes[i] = f[l3 + 12 + i];
      d.bytes[i] = f[l3 + 16 + i];
    }
  } else if (type == 0x86dd && f.size() >= l3 + 40) {
    s.v6 = d.v6 = true;
    for (size_t i = 0; i < 16; ++i) {
      s.bytes[i] = f[l3 + 8 + i];
      d.bytes[i] = f[l3 + 24 + i];
    }
  } else {
    return "?";
  }
  if (src) *src = s.to_string();
  return s.to_string() + "->" + d.to_string();
}

std::string ip_pair(const wire::RocePacket& parsed, std::string* src) {
  IpAddress s;
  IpAddress d;
  if (const auto* ip4 = std::get_if<wire::Ipv4>(&parsed.ip)) {
    std::memcpy(s.bytes.data(), ip4->src.bytes.data(), 4);
    std::memcpy(d.bytes.data(), ip4->dst.bytes.data(), 4);
  } else {
    const auto& ip6 = std::get<wire::Ipv6>(parsed.ip);
    s.v6 = d.v6 = true;
    std::memcpy(s.bytes.data(), ip6.src.bytes.data(), 16);
    std::memcpy(d.bytes.data(), ip6.dst.bytes.data(), 16);
  }
  if (src) *src = s.to_string();
  return s.to_string() + "->" + d.to_string();
}

std::string bth_summary(const wire::Bth& bth) {
  char ids[48];
  std::snprintf(ids, sizeof ids, " dqpn 0x%06x psn 0x%06x", bth.dqpn.value(), bth.psn.value());
  return wire::opcode_name(bth) + ids;
}

}  // namespace mr::analyze
