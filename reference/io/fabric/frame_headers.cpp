#include "reference/io/fabric/frame_headers.h"

#include "reference/wire/byte_reader.h"
#include "reference/wire/ether.h"
#include "reference/wire/ipv4.h"
#include "reference/wire/ipv6.h"
#include "reference/wire/udp.h"

namespace mr::io::fabric {

std::optional<FrameHeaders> parse_frame_headers(std::span<const uint8_t> frame) {
  wire::ByteReader r(frame);
  if (!r.need(wire::Ether::kSize, wire::Ether::kName)) return std::nullopt;
  wire::Ether eth;
  eth.read(r);
  uint16_t type = eth.type;
  if (type == wire::kEtherTypeDot1Q) {
    if (!r.need(wire::Dot1Q::kSize, wire::Dot1Q::kName)) return std::nullopt;
    wire::Dot1Q tag;
    tag.read(r);
    type = tag.type;
  }
  FrameHeaders h;
  h.l3_offset = r.offset();
  uint8_t protocol = 0;
  if (type == wire::kEtherTypeIpv4) {
    // Thread-local so that a steady stream of frames reuses the options vector.
    thread_local wire::Ipv4 ip;
    if (!wire::Ipv4::parse_into(r, ip)) return std::nullopt;
    h.ip_header_bytes = ip.header_size();
    h.src_v4 = ip.src;
    h.dst_v4 = ip.dst;
    protocol = ip.proto;
  } else if (type == wire::kEtherTypeIpv6) {
    if (!r.need(wire::Ipv6::kSize, wire::Ipv6::kName)) return std::nullopt;
    wire::Ipv6 ip;
    ip.read(r);
    if (ip.version != 6) return std::nullopt;
    h.ipv6 = true;
    h.ip_header_bytes = wire::Ipv6::kSize;
    h.src_v6 = ip.src;
    h.dst_v6 = ip.dst;
    h.flow_label = ip.fl;
    protocol = ip.nh;
  } else {
    return std::nullopt;
  }
  if (protocol == wire::kIpProtoUdp && r.need(wire::Udp::kSize, wire::Udp::kName)) {
    wire::Udp udp;
    udp.read(r);
    h.udp = true;
    h.sport = udp.sport;
    h.dport = udp.dport;
  }
  return h;
}

uint8_t traffic_class(std::span<const uint8_t> frame, const FrameHeaders& h) {
  const size_t l3 = h.l3_offset;
  if (!h.ipv6) return frame[l3 + 1];
  return static_cast<uint8_t>((frame[l3] & 0x0f) << 4 | frame[l3 + 1] >> 4);
}

void set_dscp(std::span<uint8_t> frame, const FrameHeaders& h, uint8_t dscp) {
  const size_t l3 = h.l3_offset;
  const uint8_t tc = static_cast<uint8_t>(dscp << 2 | (traffic_class(frame, h) & 0x03));
  if (!h.ipv6) {
    frame[l3 + 1] = tc;
    return;
  }
  frame[l3] = static_cast<uint8_t>((frame[l3] & 0xf0) | tc >> 4);
  frame[l3 + 1] = static_cast<uint8_t>((tc & 0x0f) << 4 | (frame[l3 + 1] & 0x0f));
}

}  // namespace mr::io::fabric
