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

namespace {

// The 20 bytes before the options, with `chksum` in its field: the one layout that write()
// and compute_checksum() share. Composed locally: every frame has one (HeaderBytes says why).
HeaderBytes<Ipv4::kMinSize> fixed_part(const Ipv4& ip, uint16_t chksum) {
  HeaderBytes<Ipv4::kMinSize> b;
  b.u8(static_cast<uint8_t>(ip.version << 4 | ip.ihl));
  b.u8(ip.tos);
  b.u16(ip.len);
  b.u16(ip.id);
  b.u16(static_cast<uint16_t>(ip.flags << 13 | ip.frag));
  b.u8(ip.ttl);
  b.u8(ip.proto);
  b.u16(chksum);
  b.bytes(ip.src.bytes);
  b.bytes(ip.dst.bytes);
  return b;
}

}  // namespace

void Ipv4::write(ByteWriter& w) const {
  w.bytes(fixed_part(*this, chksum).written());
  w.bytes(options);
}

uint16_t Ipv4::compute_checksum() const {
  // The header as write() lays it out, checksum zero, summed in 16-bit words (an odd last
  // options byte is left out, as it always was); on the stack, since every frame asks for it.
  // Named: a temporary in the range's initializer list would die before the loop reads it.
  const HeaderBytes<kMinSize> fixed = fixed_part(*this, 0);
  uint32_t sum = 0;
  for (const std::span<const uint8_t> part : {fixed.written(), std::span<const uint8_t>(options)}) {
    for (size_t i = 0; i + 1 < part.size(); i += 2) sum += uint32_t{part[i]} << 8 | part[i + 1];
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace mr::wire
