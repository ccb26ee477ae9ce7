#include "reference/io/icmp_echo.h"

#include "reference/io/internet_checksum.h"
#include "reference/wire/byte_writer.h"

namespace mr::io {
namespace {

constexpr size_t kEchoHeaderSize = 8;

std::vector<uint8_t> echo_message(uint8_t type, const IcmpEcho& echo) {
  std::vector<uint8_t> message;
  message.reserve(kEchoHeaderSize + echo.data.size());
  wire::ByteWriter w(message);
  w.u8(type);
  w.u8(0);
  w.u16(0);  // checksum, filled by the caller
  w.u16(echo.id);
  w.u16(echo.seq);
  w.bytes(echo.data);
  return message;
}

void put_checksum(std::vector<uint8_t>& message, uint16_t sum) {
  message[2] = static_cast<uint8_t>(sum >> 8);
  message[3] = static_cast<uint8_t>(sum);
}

}  // namespace

std::optional<IcmpEcho> parse_icmp_echo(const IpFrame& frame) {
  const std::span<const uint8_t> m = frame.payload;
  if (m.size() < kEchoHeaderSize || m[1] != 0) return std::nullopt;
  IcmpEcho echo;
  if (const auto* v6 = std::get_if<wire::Ipv6>(&frame.ip)) {
    if (v6->nh != kIpProtoIcmpv6) return std::nullopt;
    if (m[0] != kIcmpv6EchoRequest && m[0] != kIcmpv6EchoReply) return std::nullopt;
    if (ipv6_upper_layer_checksum(v6->src, v6->dst, kIpProtoIcmpv6, m) != 0) return std::nullopt;
    echo.is_request = m[0] == kIcmpv6EchoRequest;
  } else {
    if (std::get<wire::Ipv4>(frame.ip).proto != kIpProtoIcmp) return std::nullopt;
    if (m[0] != kIcmpEchoRequest && m[0] != kIcmpEchoReply) return std::nullopt;
    if (internet_checksum(m) != 0) return std::nullopt;
    echo.is_request = m[0] == kIcmpEchoRequest;
  }
  echo.id = static_cast<uint16_t>(m[4] << 8 | m[5]);
  echo.seq = static_cast<uint16_t>(m[6] << 8 | m[7]);
  echo.data = m.subspan(kEchoHeaderSize);
  return echo;
}

std::vector<uint8_t> build_icmp_echo_frame(const wire::MacAddress& src_mac,
                                           const wire::MacAddress& dst_mac,
                                           const wire::Ipv4Address& src,
                                           const wire::Ipv4Address& dst, const IcmpEcho& echo) {
  std::vector<uint8_t> m = echo_message(echo.is_request ? kIcmpEchoRequest : kIcmpEchoReply, echo);
  put_checksum(m, internet_checksum(m));
  return build_ipv4_frame(src_mac, dst_mac, src, dst, kIpProtoIcmp, m);
}

std::vector<uint8_t> build_icmp_echo_frame(const wire::MacAddress& src_mac,
                                           const wire::MacAddress& dst_mac,
                                           const wire::Ipv6Address& src,
                                           const wire::Ipv6Address& dst, const IcmpEcho& echo) {
  std::vector<uint8_t> m =
      echo_message(echo.is_request ? kIcmpv6EchoRequest : kIcmpv6EchoReply, echo);
  put_checksum(m, ipv6_upper_layer_checksum(src, dst, kIpProtoIcmpv6, m));
  return build_ipv6_frame(src_mac, dst_mac, src, dst, kIpProtoIcmpv6, m);
}

std::vector<uint8_t> build_icmp_echo_reply(const IpFrame& frame, const IcmpEcho& request,
                                           const wire::MacAddress& own_mac) {
  IcmpEcho reply = request;
  reply.is_request = false;
  if (const auto* v6 = std::get_if<wire::Ipv6>(&frame.ip)) {
    return build_icmp_echo_frame(own_mac, frame.eth.src, v6->dst, v6->src, reply);
  }
  const auto& v4 = std::get<wire::Ipv4>(frame.ip);
  return build_icmp_echo_frame(own_mac, frame.eth.src, v4.dst, v4.src, reply);
}

}  // namespace mr::io
