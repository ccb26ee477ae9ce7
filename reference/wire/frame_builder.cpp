#include "reference/wire/frame_builder.h"

#include <array>

#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/icrc.h"

namespace mr::wire {

std::vector<uint8_t> build_frame(const RocePacket& in, const BuildOptions& o) {
  RocePacket p = in;
  static constexpr std::array<uint8_t, 3> kZeros{};
  if (o.fill_padding) {
    p.bth.padcount = (4 - p.payload.size() % 4) % 4;
    p.pad = std::span(kZeros).first(p.bth.padcount);
  }
  size_t transport = kBthSize + p.payload.size() + p.pad.size() + kIcrcSize;
  p.for_each_extension([&](const auto& h) { transport += h.kSize; });
  const size_t udp_len = transport + Udp::kSize;
  if (o.fill_lengths) p.udp.len = udp_len;
  if (auto* v4 = std::get_if<Ipv4>(&p.ip)) {
    if (o.fill_lengths) v4->len = v4->header_size() + udp_len;
    if (o.fill_ip_checksum) v4->chksum = v4->compute_checksum();
  } else if (o.fill_lengths) {
    std::get<Ipv6>(p.ip).plen = udp_len;
  }

  std::vector<uint8_t> out;
  out.reserve(Ether::kSize + Dot1Q::kSize + Ipv6::kSize + udp_len);
  ByteWriter w(out);
  p.eth.write(w);
  if (p.vlan) p.vlan->write(w);
  const size_t l3 = w.size();
  std::visit([&](const auto& ip) { ip.write(w); }, p.ip);
  p.udp.write(w);
  p.bth.write(w);
  p.for_each_extension([&](const auto& h) { h.write(w); });
  w.bytes(p.payload);
  w.bytes(p.pad);
  const uint32_t icrc =
      o.fill_icrc ? IcrcCalculator::icrc(std::span(out).subspan(l3)) : p.icrc.value();
  w.u32(icrc);
  return out;
}

}  // namespace mr::wire
