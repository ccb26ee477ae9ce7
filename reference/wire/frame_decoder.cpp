#include "reference/wire/frame_decoder.h"

#include <cstdio>

#include "reference/wire/header_parse.h"
#include "reference/wire/icrc.h"
#include "reference/wire/opcode.h"

namespace mr::wire {
namespace {

constexpr uint16_t kIpFlagMoreFragments = 1;

ParseError error(std::string_view header, std::string_view field, size_t at, std::string why) {
  return ParseError{std::string(header), std::string(field), at, std::move(why)};
}

// Reads the extended headers the opcode implies, in wire order.
Expected<void, ParseError> read_extensions(const OpcodeInfo& info, ByteReader& r, RocePacket& p) {
  auto take = [&](HeaderBit bit, auto& slot) -> Expected<void, ParseError> {
    if (!info.has(bit)) return {};
    using H = typename std::remove_reference_t<decltype(slot)>::value_type;
    auto h = parse_header<H>(r);
    if (!h) {
      auto e = h.error();
      e.reason += " (" + info.name() + " implies " + std::string(H::kName) + ")";
      return Unexpected(e);
    }
    slot = *h;
    return {};
  };
  Expected<void, ParseError> ok;
  if (!(ok = take(kRdeth, p.rdeth))) return ok;
  if (!(ok = take(kDeth, p.deth))) return ok;
  if (!(ok = take(kFeth, p.feth))) return ok;
  if (!(ok = take(kReth, p.reth))) return ok;
  if (!(ok = take(kAtomicEth, p.atomic_eth))) return ok;
  if (!(ok = take(kImmDt, p.imm_dt))) return ok;
  if (!(ok = take(kIeth, p.ieth))) return ok;
  if (!(ok = take(kAeth, p.aeth))) return ok;
  if (!(ok = take(kAtomicAckEth, p.atomic_ack_eth))) return ok;
  return take(kCnpPadding, p.cnp_padding);
}

// The RoCE transport packet: BTH .. ICRC, exactly the UDP payload.
Expected<DecodedFrame, ParseError> decode_transport(std::span<const uint8_t> frame, size_t at,
                                                    size_t size, DecodedRoce d) {
  ByteReader r(frame.subspan(at, size), at);
  auto bth = parse_header<Bth>(r);
  if (!bth) return Unexpected(bth.error());
  RocePacket& p = d.packet;
  p.bth = *bth;
  const auto info = opcode_info(p.bth.opcode);
  d.opcode_known = info.has_value();
  if (info) {
    if (auto ok = read_extensions(*info, r, p); !ok) return Unexpected(ok.error());
  }
  if (auto ok = r.need(kIcrcSize, "ICRC"); !ok) return Unexpected(ok.error());
  const size_t data = r.remaining() - kIcrcSize;
  if (p.bth.padcount > data) {
    return Unexpected(error("BTH", "padcount", d.transport_offset + 1,
                            "pad count " + std::to_string(p.bth.padcount.value()) +
                                " exceeds the " + std::to_string(data) + " bytes before the ICRC"));
  }
  if (info && !info->is(kPayload) && data > 0) {
    return Unexpected(error("BTH", "opcode", d.transport_offset,
                            info->name() + " carries no payload, but " + std::to_string(data) +
                                " bytes follow its headers"));
  }
  p.payload = r.take(data - p.bth.padcount);
  p.pad = r.take(p.bth.padcount);
  p.icrc = r.u32();
  d.icrc_computed =
      IcrcCalculator::icrc(frame.subspan(d.l3_offset, at + size - kIcrcSize - d.l3_offset));
  return d;
}

}  // namespace

std::string NotRoce::to_string() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*s 0x%x", static_cast<int>(what.size()), what.data(), value);
  return buf;
}

Expected<DecodedFrame, ParseError> decode_frame(std::span<const uint8_t> frame) {
  ByteReader r(frame);
  DecodedRoce d;
  RocePacket& p = d.packet;
  auto eth = parse_header<Ether>(r);
  if (!eth) return Unexpected(eth.error());
  p.eth = *eth;
  uint16_t type = p.eth.type;
  if (type == kEtherTypeDot1Q) {
    auto tag = parse_header<Dot1Q>(r);
    if (!tag) return Unexpected(tag.error());
    p.vlan = *tag;
    type = tag->type;
  }
  d.l3_offset = r.offset();
  size_t l4_size = 0;  // bytes the IP header says follow it
  if (type == kEtherTypeIpv4) {
    auto ip = Ipv4::parse(r);
    if (!ip) return Unexpected(ip.error());
    if (ip->proto != kIpProtoUdp) return NotRoce{"ip protocol", ip->proto};
    if (ip->frag != 0 || (ip->flags & kIpFlagMoreFragments))
      return NotRoce{"ip fragment", ip->frag};
    const size_t available = frame.size() - d.l3_offset;
    if (ip->len > available) {
      return Unexpected(error("IP", "len", d.l3_offset + 2,
                              "total length " + std::to_string(ip->len.value()) + " exceeds the " +
                                  std::to_string(available) + " bytes captured"));
    }
    l4_size = ip->len - ip->header_size();
    p.ip = std::move(*ip);
  } else if (type == kEtherTypeIpv6) {
    auto ip = parse_header<Ipv6>(r);
    if (!ip) return Unexpected(ip.error());
    if (ip->version != 6) {
      return Unexpected(error("IPv6", "version", d.l3_offset,
                              "expected 6, got " + std::to_string(ip->version.value())));
    }
    if (ip->nh != kIpProtoUdp) return NotRoce{"ipv6 next header", ip->nh};
    if (ip->plen > r.remaining()) {
      return Unexpected(error("IPv6", "plen", d.l3_offset + 4,
                              "payload length " + std::to_string(ip->plen.value()) +
                                  " exceeds the " + std::to_string(r.remaining()) +
                                  " bytes captured"));
    }
    l4_size = ip->plen;
    p.ip = *ip;
  } else {
    return NotRoce{"ethertype", type};
  }

  const size_t udp_at = r.offset();
  ByteReader l4(frame.subspan(udp_at, l4_size), udp_at);
  auto udp = parse_header<Udp>(l4);
  if (!udp) return Unexpected(udp.error());
  if (udp->dport != kRoceV2Port) return NotRoce{"udp port", udp->dport};
  if (udp->len != l4_size) {
    return Unexpected(error("UDP", "len", udp_at + 4,
                            "length " + std::to_string(udp->len.value()) +
                                " disagrees with the IP header, which leaves " +
                                std::to_string(l4_size) + " bytes"));
  }
  p.udp = *udp;
  const size_t transport_at = l4.offset();
  d.transport_offset = transport_at;
  return decode_transport(frame, transport_at, l4.remaining(), std::move(d));
}

}  // namespace mr::wire
