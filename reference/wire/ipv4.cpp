#include "reference/wire/ipv4.h"

#include <array>
#include <cstring>
#include <span>
#include <string>

namespace mr::wire {

Expected<Ipv4, ParseError> Ipv4::parse(ByteReader& r) {
  Ipv4 ip;
  if (auto ok = parse_into(r, ip); !ok) return Unexpected(std::move(ok.error()));
  return ip;
}

Expected<void, ParseError> Ipv4::parse_into(ByteReader& r, Ipv4& ip) {
  const size_t start = r.offset();
  if (auto ok = r.need(kMinSize, kName); !ok) return ok;
  // From a local copy: a byte-wide store into `ip` may alias anything, so reading through
  // the reader made the compiler reload its cursor after every field.
  std::array<uint8_t, kMinSize> h;
  r.copy_into(h);
  auto be16 = [&h](size_t at) { return static_cast<uint16_t>(h[at] << 8 | h[at + 1]); };
  ip.version = h[0] >> 4;
  ip.ihl = h[0];
  if (ip.version != 4) {
    return Unexpected(ParseError{"IP", "version", start,
                                 "expected 4, got " + std::to_string(ip.version.value())});
  }
  if (ip.ihl < 5) {
    return Unexpected(ParseError{
        "IP", "ihl", start,
        "header length " + std::to_string(ip.ihl.value()) + " words is below the minimum of 5"});
  }
  ip.tos = h[1];
  ip.len = be16(2);
  ip.id = be16(4);
  const uint16_t ff = be16(6);
  ip.flags = ff >> 13;
  ip.frag = ff;
  ip.ttl = h[8];
  ip.proto = h[9];
  ip.chksum = be16(10);
  std::memcpy(ip.src.bytes.data(), &h[12], 4);
  std::memcpy(ip.dst.bytes.data(), &h[16], 4);
  const size_t opt = ip.header_size() - kMinSize;
  if (auto ok = r.need(opt, "IP options"); !ok) return ok;
  if (opt == 0) {
    ip.options.clear();
  } else {
    auto o = r.take(opt);
    ip.options.assign(o.begin(), o.end());
  }
  if (ip.len < ip.header_size()) {
    return Unexpected(ParseError{"IP", "len", start + 2,
                                 "total length " + std::to_string(ip.len.value()) +
                                     " is shorter than the header (" +
                                     std::to_string(ip.header_size()) + ")"});
  }
  return {};
}

void Ipv4::write(ByteWriter& w) const {
  HeaderBytes<kMinSize> b;  // composed locally: every frame has one (HeaderBytes says why)
  b.u8(static_cast<uint8_t>(version << 4 | ihl));
  b.u8(tos);
  b.u16(len);
  b.u16(id);
  b.u16(static_cast<uint16_t>(flags << 13 | frag));
  b.u8(ttl);
  b.u8(proto);
  b.u16(chksum);
  b.bytes(src.bytes);
  b.bytes(dst.bytes);
  w.bytes(b.written());
  w.bytes(options);
}

uint16_t Ipv4::compute_checksum() const {
  // The header's 16-bit words summed straight from the fields, as write() would lay them out:
  // no buffer, since every frame a sender builds asks for it.
  auto pair = [](uint32_t hi, uint32_t lo) { return (hi & 0xff) << 8 | (lo & 0xff); };
  auto words = [](std::span<const uint8_t> b) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < b.size(); i += 2) sum += uint32_t{b[i]} << 8 | b[i + 1];
    return sum;
  };
  uint32_t sum = pair(version << 4 | ihl, tos) + len + id + ((flags << 13 | frag) & 0xffff) +
                 pair(ttl, proto) + words(src.bytes) + words(dst.bytes) + words(options);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace mr::wire
