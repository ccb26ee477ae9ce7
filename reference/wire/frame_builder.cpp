#include "reference/wire/frame_builder.h"

#include <array>
#include <cstdint>
#include <span>
#include <variant>

#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/icrc.h"

namespace mr::wire {
namespace {

// Ones' complement sum of big-endian 16-bit words; an odd last byte is padded with zero.
uint32_t add_words(uint32_t sum, std::span<const uint8_t> bytes) {
  for (size_t i = 0; i < bytes.size(); i += 2) {
    const uint32_t lo = i + 1 < bytes.size() ? bytes[i + 1] : 0;
    sum += (static_cast<uint32_t>(bytes[i]) << 8) | lo;
  }
  return sum;
}

// The UDP checksum of `datagram` (its checksum field zero) under the pseudo-header of `ip`.
uint16_t udp_checksum(const std::variant<Ipv4, Ipv6>& ip, std::span<const uint8_t> datagram) {
  const auto len = static_cast<uint32_t>(datagram.size());
  uint32_t sum = 0;
  if (const auto* v4 = std::get_if<Ipv4>(&ip)) {
    sum = add_words(add_words(sum, v4->src.bytes), v4->dst.bytes);
  } else {
    const auto& v6 = std::get<Ipv6>(ip);
    sum = add_words(add_words(sum, v6.src.bytes), v6.dst.bytes);
    sum += len >> 16;
  }
  sum += 17 + (len & 0xffff);  // protocol UDP and the UDP length
  sum = add_words(sum, datagram);
  while ((sum >> 16) != 0) sum = (sum & 0xffff) + (sum >> 16);
  const auto c = static_cast<uint16_t>(~sum);
  return c == 0 ? 0xffff : c;  // 0 means "no checksum": RFC 768 sends all ones instead
}

}  // namespace

size_t payload_size(const RocePacket& p, PayloadPieces pieces) {
  if (pieces.empty()) return p.payload.size();
  size_t n = 0;
  for (const auto& piece : pieces) n += piece.size();
  return n;
}

std::vector<uint8_t> build_frame(const RocePacket& p, const BuildOptions& o) {
  std::vector<uint8_t> out;
  build_frame_into(p, o, out);
  return out;
}

void build_frame_into(const RocePacket& p, const BuildOptions& o, std::vector<uint8_t>& out,
                      PayloadPieces pieces) {
  static constexpr std::array<uint8_t, 3> kZeros{};
  const size_t payload = payload_size(p, pieces);
  // The headers the builder fills are copied and changed; the packet itself is read only.
  Bth bth = p.bth;
  std::span<const uint8_t> pad = p.pad;
  if (o.fill_padding) {
    bth.padcount = (4 - payload % 4) % 4;
    pad = std::span(kZeros).first(bth.padcount);
  }
  size_t transport = kBthSize + payload + pad.size() + kIcrcSize;
  p.for_each_extension([&](const auto& h) { transport += h.kSize; });
  p.for_each_trailer([&](const auto& h) { transport += h.kSize; });
  const size_t udp_len = transport + Udp::kSize;
  Udp udp = p.udp;
  if (o.fill_udp_length) udp.len = udp_len;

  size_t l3_size = Ipv6::kSize;
  if (const auto* v4 = std::get_if<Ipv4>(&p.ip)) l3_size = Ipv4::kMinSize + v4->options.size();
  // Shrinking keeps the bytes and growing zero-fills only the new tail: a reused buffer of the
  // same size is not written twice.
  out.resize(Ether::kSize + (p.vlan ? Dot1Q::kSize : 0) + l3_size + udp_len);
  ByteWriter w{std::span(out)};
  p.eth.write(w);
  if (p.vlan) p.vlan->write(w);
  const size_t l3 = w.size();
  if (const auto* given = std::get_if<Ipv4>(&p.ip)) {
    if (o.fill_ip_length || o.fill_ip_checksum) {
      Ipv4 v4 = *given;
      if (o.fill_ip_length) v4.len = v4.header_size() + udp_len;
      if (o.fill_ip_checksum) v4.chksum = v4.compute_checksum();
      v4.write(w);
    } else {
      given->write(w);
    }
  } else {
    Ipv6 v6 = std::get<Ipv6>(p.ip);
    if (o.fill_ip_length) v6.plen = udp_len;
    v6.write(w);
  }
  const size_t udp_at = w.size();
  udp.write(w);
  bth.write(w);
  p.for_each_extension([&](const auto& h) { h.write(w); });
  if (pieces.empty()) {
    w.bytes(p.payload);
  } else {
    for (const auto& piece : pieces) w.bytes(piece);
  }
  w.bytes(pad);
  p.for_each_trailer([&](const auto& h) { h.write(w); });
  const uint32_t icrc = o.fill_icrc
                            ? IcrcCalculator::icrc(std::span(out).subspan(l3, w.size() - l3))
                            : p.icrc.value();
  w.u32(icrc);
  if (o.fill_udp_checksum) {
    const std::span datagram = std::span(out).subspan(udp_at);
    datagram[6] = datagram[7] = 0;
    const uint16_t c = udp_checksum(p.ip, datagram);
    datagram[6] = static_cast<uint8_t>(c >> 8);
    datagram[7] = static_cast<uint8_t>(c);
  }
}

}  // namespace mr::wire
