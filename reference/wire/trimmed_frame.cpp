// File: trimmed_frame.cpp
#include "reference/wire/trimmed_frame.h"

#include "reference/wire/byte_reader.h"
#include "reference/wire/ecn.h"
#include "reference/wire/ether.h"
#include "reference/wire/opcode.h"

namespace mr::wire {

uint8_t TrimmedFrame::dscp() const { return dscp_of(packet); }

std::optional<TrimmedFrame> read_trimmed_frame(std::span<const uint8_t> frame) {
  TrimmedFrame t;
  RocePacket& p = t.packet;
  ByteReader r(frame);
  if (!r.need(Ether::kSize, Ether::kName)) return std::nullopt;
  p.eth.read(r);
  uint16_t type = p.eth.type;
  if (type == kEtherTypeDot1Q) {
    if (!r.need(Dot1Q::kSize, Dot1Q::kName)) return std::nullopt;
    p.vlan.emplace().read(r);
    type = p.vlan->type;
  }
  const size_t l3 = r.offset();
  uint8_t next = 0;
  if (type == kEtherTypeIpv4) {
    Ipv4 ip;
    if (!Ipv4::parse_into(r, ip)) return std::nullopt;
    next = ip.proto;
    t.ip_length_field = ip.len;
    p.ip = ip;
  } else if (type == kEtherTypeIpv6) {
    if (!r.need(Ipv6::kSize, Ipv6::kName)) return std::nullopt;
    Ipv6 ip;
    ip.read(r);
    if (ip.version != 6) return std::nullopt;
    next = ip.nh;
    t.ip_length_field = Ipv6::kSize + ip.plen;
    p.ip = ip;
  } else {
    return std::nullopt;
  }
  t.ip_bytes_held = static_cast<uint32_t>(frame.size() - l3);
  if (next != kIpProtoUdp || !r.need(Udp::kSize, Udp::kName)) return std::nullopt;
  p.udp.read(r);
  if (p.udp.dport != kRoceV2Port || !r.need(Bth::kSize, Bth::kName)) return std::nullopt;
  p.bth.read(r);
  const OpcodeInfo* info = opcode_info(p.bth.opcode, p.bth.header_set());
  bool cut = false;
  RocePacket::for_each_extension_slot(p, [&](HeaderBit bit, auto& slot) {
    using H = typename std::remove_reference_t<decltype(slot)>::value_type;
    slot.reset();
    if (cut || info == nullptr || !info->has(bit)) return;
    if (!r.need(H::kSize, H::kName)) {
      cut = true;
      return;
    }
    slot.emplace().read(r);
  });
  return t;
}

}  // namespace mr::wire
