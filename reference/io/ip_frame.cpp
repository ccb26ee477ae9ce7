#include "reference/io/ip_frame.h"

#include <string>

namespace mr::io {

uint8_t IpFrame::protocol() const {
  if (const auto* v6 = std::get_if<wire::Ipv6>(&ip)) return v6->nh;
  return std::get<wire::Ipv4>(ip).proto;
}

namespace {

// The `declared` bytes the IP header says follow it, or as many as the frame holds when it
// holds fewer: a packet a trimming switch cut and left its lengths on (spec section 23).
std::span<const uint8_t> take_body(wire::ByteReader& r, size_t declared, bool& cut) {
  cut = r.remaining() < declared;
  return r.take(cut ? r.remaining() : declared);
}

}  // namespace

Expected<std::optional<IpFrame>, wire::ParseError> parse_ip_frame(std::span<const uint8_t> frame) {
  wire::ByteReader r(frame);
  if (auto ok = r.need(wire::Ether::kSize, wire::Ether::kName); !ok) {
    return Unexpected(ok.error());
  }
  IpFrame out;
  out.eth.read(r);
  uint16_t type = out.eth.type;
  if (type == wire::kEtherTypeDot1Q) {
    if (auto ok = r.need(wire::Dot1Q::kSize, wire::Dot1Q::kName); !ok) {
      return Unexpected(ok.error());
    }
    out.vlan.emplace().read(r);
    type = out.vlan->type;
  }
  if (type == wire::kEtherTypeIpv4) {
    const size_t start = r.offset();
    auto ip = wire::Ipv4::parse(r);
    if (!ip) return Unexpected(ip.error());
    if (ip->len < ip->header_size()) {
      return Unexpected(wire::ParseError{
          "IP", "len", start + 2,
          "total length " + std::to_string(ip->len.value()) + " is shorter than the header"});
    }
    if (ip->frag != 0 || (ip->flags & 1U) != 0) {
      return Unexpected(wire::ParseError{"IP", "frag", start + 6, "fragments are not handled"});
    }
    out.payload = take_body(r, ip->len - ip->header_size(), out.cut);
    out.ip = std::move(*ip);
    return std::optional<IpFrame>(std::move(out));
  }
  if (type == wire::kEtherTypeIpv6) {
    if (auto ok = r.need(wire::Ipv6::kSize, wire::Ipv6::kName); !ok) {
      return Unexpected(ok.error());
    }
    wire::Ipv6 ip;
    ip.read(r);
    out.payload = take_body(r, ip.plen, out.cut);
    out.ip = ip;
    return std::optional<IpFrame>(std::move(out));
  }
  return std::optional<IpFrame>();
}

std::vector<uint8_t> build_ipv4_frame(const wire::MacAddress& src_mac,
                                      const wire::MacAddress& dst_mac, const wire::Ipv4Address& src,
                                      const wire::Ipv4Address& dst, uint8_t protocol,
                                      std::span<const uint8_t> payload, uint8_t ttl) {
  std::vector<uint8_t> frame;
  frame.reserve(wire::Ether::kSize + wire::Ipv4::kMinSize + payload.size());
  wire::ByteWriter w(frame);
  wire::Ether{dst_mac, src_mac, wire::kEtherTypeIpv4}.write(w);
  wire::Ipv4 ip;
  ip.len = static_cast<uint16_t>(wire::Ipv4::kMinSize + payload.size());
  ip.flags = 2;  // DF: these frames are never fragmented
  ip.ttl = ttl;
  ip.proto = protocol;
  ip.src = src;
  ip.dst = dst;
  ip.chksum = ip.compute_checksum();
  ip.write(w);
  w.bytes(payload);
  return frame;
}

std::vector<uint8_t> build_ipv6_frame(const wire::MacAddress& src_mac,
                                      const wire::MacAddress& dst_mac, const wire::Ipv6Address& src,
                                      const wire::Ipv6Address& dst, uint8_t next_header,
                                      std::span<const uint8_t> payload, uint8_t hop_limit) {
  std::vector<uint8_t> frame;
  frame.reserve(wire::Ether::kSize + wire::Ipv6::kSize + payload.size());
  wire::ByteWriter w(frame);
  wire::Ether{dst_mac, src_mac, wire::kEtherTypeIpv6}.write(w);
  wire::Ipv6 ip;
  ip.plen = static_cast<uint16_t>(payload.size());
  ip.nh = next_header;
  ip.hlim = hop_limit;
  ip.src = src;
  ip.dst = dst;
  ip.write(w);
  w.bytes(payload);
  return frame;
}

}  // namespace mr::io
