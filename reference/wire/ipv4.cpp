#include "reference/wire/ipv4.h"

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
  const uint8_t b0 = r.u8();
  ip.version = b0 >> 4;
  ip.ihl = b0;
  if (ip.version != 4) {
    return Unexpected(ParseError{"IP", "version", start,
                                 "expected 4, got " + std::to_string(ip.version.value())});
  }
  if (ip.ihl < 5) {
    return Unexpected(ParseError{
        "IP", "ihl", start,
        "header length " + std::to_string(ip.ihl.value()) + " words is below the minimum of 5"});
  }
  ip.tos = r.u8();
  ip.len = r.u16();
  ip.id = r.u16();
  const uint16_t ff = r.u16();
  ip.flags = ff >> 13;
  ip.frag = ff;
  ip.ttl = r.u8();
  ip.proto = r.u8();
  ip.chksum = r.u16();
  r.copy_into(ip.src.bytes);
  r.copy_into(ip.dst.bytes);
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
  w.u8(static_cast<uint8_t>(version << 4 | ihl));
  w.u8(tos);
  w.u16(len);
  w.u16(id);
  w.u16(static_cast<uint16_t>(flags << 13 | frag));
  w.u8(ttl);
  w.u8(proto);
  w.u16(chksum);
  w.bytes(src.bytes);
  w.bytes(dst.bytes);
  w.bytes(options);
}

uint16_t Ipv4::compute_checksum() const {
  Ipv4 copy = *this;
  copy.chksum = 0;
  std::vector<uint8_t> bytes;
  ByteWriter w(bytes);
  copy.write(w);
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) sum += uint32_t{bytes[i]} << 8 | bytes[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace mr::wire
