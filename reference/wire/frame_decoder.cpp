#include "reference/wire/frame_decoder.h"

#include <cstdio>

#include "reference/wire/header_parse.h"
#include "reference/wire/icrc.h"
#include "reference/wire/opcode.h"

namespace mr::wire {
namespace {

constexpr uint16_t kIpFlagMoreFragments = 1;

// The error paths build their text out of line and cold: inline, their string temporaries
// gave each decoding function a large stack frame, kept decode_transport out of line, and
// the frame's one success path paid for both.
[[gnu::cold]] Unexpected<ParseError> error(std::string_view header, std::string_view field,
                                           size_t at, std::string why) {
  return Unexpected(ParseError{std::string(header), std::string(field), at, std::move(why)});
}

// "<what> <value> exceeds the <limit> bytes <where>"
[[gnu::cold, gnu::noinline]] Unexpected<ParseError> exceeds(std::string_view header,
                                                            std::string_view field, size_t at,
                                                            std::string_view what, size_t value,
                                                            size_t limit, std::string_view where) {
  return error(header, field, at,
               std::string(what) + " " + std::to_string(value) + " exceeds the " +
                   std::to_string(limit) + " bytes " + std::string(where));
}

// The slow half of read_extensions: walks the headers one by one to name the first that
// does not fit.
[[gnu::cold, gnu::noinline]] Expected<void, ParseError> name_missing_extension(
    const OpcodeInfo& info, ByteReader& r, RocePacket& p) {
  Expected<void, ParseError> result;
  // Cleared first: a refused frame's extension slots are exactly the headers read whole.
  RocePacket::for_each_extension_slot(p, [](HeaderBit, auto& slot) { slot.reset(); });
  RocePacket::for_each_extension_slot(p, [&](HeaderBit bit, auto& slot) {
    using H = typename std::remove_reference_t<decltype(slot)>::value_type;
    if (!result || !info.has(bit)) return;
    if (auto ok = r.need(H::kSize, H::kName); !ok) {
      ParseError e = ok.error();
      e.reason += " (" + info.name() + " implies " + std::string(H::kName) + ")";
      result = Unexpected(std::move(e));
      return;
    }
    slot.emplace().read(r);
  });
  return result;
}

// Reads the extended headers the opcode implies. One bounds check covers them all; when it
// fails, the headers are walked one by one to name the first that does not fit.
Expected<void, ParseError> read_extensions(const OpcodeInfo& info, ByteReader& r, RocePacket& p) {
  if (r.remaining() >= info.header_bytes()) [[likely]] {
    RocePacket::for_each_extension_slot(p, [&](HeaderBit bit, auto& slot) {
      if (!info.has(bit)) {
        slot.reset();
        return;
      }
      slot.emplace().read(r);
    });
    return {};
  }
  return name_missing_extension(info, r, p);
}

[[gnu::cold, gnu::noinline]] Unexpected<ParseError> unexpected_payload(const OpcodeInfo& info,
                                                                       const DecodedRoce& d,
                                                                       size_t data) {
  return error("BTH", "opcode", d.transport_offset,
               info.name() + " carries no payload, but " + std::to_string(data) +
                   " bytes follow its headers");
}

// The RoCE transport packet: BTH .. ICRC, exactly the UDP payload. Sets `depth` to kBth
// once the BTH is read.
Expected<void, ParseError> decode_transport(std::span<const uint8_t> frame, size_t at, size_t size,
                                            DecodedRoce& d, DecodeDepth& depth) {
  ByteReader r(frame.subspan(at, size), at);
  if (auto ok = r.need(Bth::kSize, Bth::kName); !ok) return ok;
  RocePacket& p = d.packet;
  p.bth.read(r);
  depth = DecodeDepth::kBth;
  const HeaderSet set = p.bth.header_set();
  const OpcodeInfo* info = opcode_info(p.bth.opcode, set);
  d.opcode_known = info != nullptr;
  if (info) {
    if (auto ok = read_extensions(*info, r, p); !ok) return ok;
  } else {
    RocePacket::for_each_extension_slot(p, [](HeaderBit, auto& slot) { slot.reset(); });
  }
  // A secure packet (SX set, spec section 19.4) ends in its tag, then the ICRC.
  const bool tagged = info && set == HeaderSet::kExtSecure;
  if (!tagged) {
    if (auto ok = r.need(kIcrcSize, "ICRC"); !ok) return ok;
  } else if (auto ok = r.need(kSecTagSize + kIcrcSize, SecTag::kName); !ok) {
    return ok;
  }
  const size_t data = r.remaining() - kIcrcSize - (tagged ? kSecTagSize : 0);
  if (p.bth.padcount > data) {
    return exceeds("BTH", "padcount", d.transport_offset + 1, "pad count", p.bth.padcount, data,
                   tagged ? "before the SecTag" : "before the ICRC");
  }
  if (info && !info->is(kPayload) && data > 0) return unexpected_payload(*info, d, data);
  p.payload = r.take(data - p.bth.padcount);
  p.pad = r.take(p.bth.padcount);
  if (tagged) {
    p.sec_tag.emplace().read(r);
  } else if (p.sec_tag) [[unlikely]] {
    p.sec_tag.reset();
  }
  p.icrc = r.u32();
  d.icrc_computed =
      IcrcCalculator::icrc(frame.subspan(d.l3_offset, at + size - kIcrcSize - d.l3_offset));
  return {};
}

[[gnu::cold, gnu::noinline]] Unexpected<ParseError> wrong_ipv6_version(size_t at,
                                                                       unsigned version) {
  return error("IPv6", "version", at, "expected 6, got " + std::to_string(version));
}

// IPv4 or IPv6 at r; sets l4_size to the bytes the IP header says follow it, and `depth`
// to kIp once the IP header is read. Sets `not_roce` when the packet is well-formed IP but
// cannot be RoCE.
Expected<void, ParseError> decode_ip(std::span<const uint8_t> frame, uint16_t type, ByteReader& r,
                                     DecodedRoce& d, size_t& l4_size,
                                     std::optional<NotRoce>& not_roce, DecodeDepth& depth) {
  RocePacket& p = d.packet;
  if (type == kEtherTypeIpv4) {
    auto* ip = std::get_if<Ipv4>(&p.ip);
    if (!ip) ip = &p.ip.emplace<Ipv4>();
    if (auto ok = Ipv4::parse_into(r, *ip); !ok) return ok;
    depth = DecodeDepth::kIp;
    if (ip->proto != kIpProtoUdp) {
      not_roce = NotRoce{"ip protocol", ip->proto};
      return {};
    }
    if (ip->frag != 0 || (ip->flags & kIpFlagMoreFragments)) {
      not_roce = NotRoce{"ip fragment", ip->frag};
      return {};
    }
    const size_t available = frame.size() - d.l3_offset;
    if (ip->len > available) {
      return exceeds("IP", "len", d.l3_offset + 2, "total length", ip->len, available, "captured");
    }
    l4_size = ip->len - ip->header_size();
    return {};
  }
  if (type == kEtherTypeIpv6) {
    if (auto ok = r.need(Ipv6::kSize, Ipv6::kName); !ok) return ok;
    Ipv6 ip;
    ip.read(r);
    if (ip.version != 6) return wrong_ipv6_version(d.l3_offset, ip.version);
    p.ip = ip;
    depth = DecodeDepth::kIp;
    if (ip.nh != kIpProtoUdp) {
      not_roce = NotRoce{"ipv6 next header", ip.nh};
      return {};
    }
    if (ip.plen > r.remaining()) {
      return exceeds("IPv6", "plen", d.l3_offset + 4, "payload length", ip.plen, r.remaining(),
                     "captured");
    }
    l4_size = ip.plen;
    return {};
  }
  not_roce = NotRoce{"ethertype", type};
  return {};
}

[[gnu::cold, gnu::noinline]] Unexpected<ParseError> udp_length_mismatch(size_t udp_at, size_t len,
                                                                        size_t l4_size) {
  return error("UDP", "len", udp_at + 4,
               "length " + std::to_string(len) + " disagrees with the IP header, which leaves " +
                   std::to_string(l4_size) + " bytes");
}

// A refused frame's error, with how far it was read. Cold: the success path carries none
// of its moves.
template <class E>
[[gnu::cold, gnu::noinline]] Unexpected<DecodeError> refused(E& failed, DecodeDepth depth) {
  return Unexpected(DecodeError{std::move(failed.error()), depth});
}
[[gnu::cold, gnu::noinline]] Unexpected<DecodeError> refused(Unexpected<ParseError> failed,
                                                             DecodeDepth depth) {
  return Unexpected(DecodeError{std::move(failed.error()), depth});
}

// The link header at r: Ethernet, or the cooked header a Linux "any" capture has instead.
// Sets `type` to the ethertype of what follows.
Expected<void, ParseError> read_link_header(Framing framing, ByteReader& r, DecodedRoce& d,
                                            uint16_t& type) {
  RocePacket& p = d.packet;
  switch (framing) {
    case Framing::kEthernet:
      if (auto ok = r.need(Ether::kSize, Ether::kName); !ok) return ok;
      p.eth.read(r);
      if (!std::holds_alternative<std::monostate>(d.cooked)) [[unlikely]]
        d.cooked = std::monostate{};
      type = p.eth.type;
      return {};
    case Framing::kLinuxSll: {
      if (auto ok = r.need(CookedLinux::kSize, CookedLinux::kName); !ok) return ok;
      auto& sll = d.cooked.emplace<CookedLinux>();
      sll.read(r);
      type = sll.proto;
      break;
    }
    case Framing::kLinuxSll2: {
      if (auto ok = r.need(CookedLinuxV2::kSize, CookedLinuxV2::kName); !ok) return ok;
      auto& sll2 = d.cooked.emplace<CookedLinuxV2>();
      sll2.read(r);
      type = sll2.proto;
      break;
    }
  }
  p.eth = Ether{};
  p.eth.type = type;
  return {};
}

}  // namespace

std::string NotRoce::to_string() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*s 0x%x", static_cast<int>(what.size()), what.data(), value);
  return buf;
}

Expected<void, DecodeError> decode_frame_into(std::span<const uint8_t> frame, Framing framing,
                                              DecodedFrame& out) {
  auto* slot = std::get_if<DecodedRoce>(&out);
  DecodedRoce& d = slot ? *slot : out.emplace<DecodedRoce>();
  RocePacket& p = d.packet;
  ByteReader r(frame);
  DecodeDepth depth = DecodeDepth::kNone;
  uint16_t type = 0;
  if (auto ok = read_link_header(framing, r, d, type); !ok) return refused(ok, depth);
  p.vlan.reset();
  if (type == kEtherTypeDot1Q) {
    if (auto ok = r.need(Dot1Q::kSize, Dot1Q::kName); !ok) {
      depth = DecodeDepth::kLink;  // the link header was read whole; the tag was not
      return refused(ok, depth);
    }
    p.vlan.emplace().read(r);
    type = p.vlan->type;
  }
  depth = DecodeDepth::kLink;
  d.l3_offset = r.offset();
  size_t l4_size = 0;
  std::optional<NotRoce> not_roce;
  if (auto ok = decode_ip(frame, type, r, d, l4_size, not_roce, depth); !ok) {
    return refused(ok, depth);
  }
  if (not_roce) {
    out = *not_roce;
    return {};
  }

  const size_t udp_at = r.offset();
  ByteReader l4(frame.subspan(udp_at, l4_size), udp_at);
  if (auto ok = l4.need(Udp::kSize, Udp::kName); !ok) return refused(ok, depth);
  p.udp.read(l4);
  depth = DecodeDepth::kUdp;
  if (p.udp.dport != kRoceV2Port) {
    out = NotRoce{"udp port", p.udp.dport};
    return {};
  }
  if (p.udp.len != l4_size) {
    return refused(udp_length_mismatch(udp_at, p.udp.len, l4_size), depth);
  }
  d.transport_offset = l4.offset();
  if (auto ok = decode_transport(frame, d.transport_offset, l4.remaining(), d, depth); !ok) {
    return refused(ok, depth);
  }
  return {};
}

Expected<DecodedFrame, ParseError> decode_frame(std::span<const uint8_t> frame) {
  DecodedFrame out;
  if (auto ok = decode_frame_into(frame, Framing::kEthernet, out); !ok) {
    return Unexpected(std::move(ok.error().error));
  }
  return out;
}

Expected<DecodedFrame, MalformedFrame> decode_frame(std::span<const uint8_t> frame,
                                                    Framing framing) {
  DecodedFrame out;
  if (auto ok = decode_frame_into(frame, framing, out); !ok) {
    return Unexpected(MalformedFrame{std::move(std::get<DecodedRoce>(out)), ok.error().depth,
                                     std::move(ok.error().error)});
  }
  return out;
}

}  // namespace mr::wire
