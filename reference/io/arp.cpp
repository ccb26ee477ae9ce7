#include "reference/io/arp.h"

#include "reference/wire/byte_reader.h"
#include "reference/wire/ether.h"

namespace mr::io {
namespace {

const wire::MacAddress kBroadcast{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

template <size_t N>
void read_into(wire::ByteReader& r, std::array<uint8_t, N>& out) {
  const auto b = r.take(N);
  std::copy(b.begin(), b.end(), out.begin());
}

}  // namespace

Arp Arp::request(const wire::MacAddress& own_mac, const wire::Ipv4Address& own_ip,
                 const wire::Ipv4Address& wanted) {
  Arp a;
  a.op = kRequest;
  a.hwsrc = own_mac;
  a.psrc = own_ip;
  a.pdst = wanted;
  return a;
}

Arp Arp::reply_to(const Arp& request, const wire::MacAddress& own_mac) {
  Arp a;
  a.op = kReply;
  a.hwsrc = own_mac;
  a.psrc = request.pdst;
  a.hwdst = request.hwsrc;
  a.pdst = request.psrc;
  return a;
}

std::optional<Arp> Arp::parse(std::span<const uint8_t> frame) {
  wire::ByteReader r(frame);
  if (!r.need(wire::Ether::kSize + kSize, "ARP")) return std::nullopt;
  wire::Ether eth;
  eth.read(r);
  if (eth.type != kEtherTypeArp) return std::nullopt;
  Arp a;
  a.hwtype = r.u16();
  a.ptype = r.u16();
  a.hwlen = r.u8();
  a.plen = r.u8();
  a.op = r.u16();
  if (a.hwtype != 1 || a.ptype != wire::kEtherTypeIpv4 || a.hwlen != 6 || a.plen != 4) {
    return std::nullopt;
  }
  read_into(r, a.hwsrc.bytes);
  read_into(r, a.psrc.bytes);
  read_into(r, a.hwdst.bytes);
  read_into(r, a.pdst.bytes);
  return a;
}

void Arp::write(wire::ByteWriter& w) const {
  w.u16(hwtype);
  w.u16(ptype);
  w.u8(hwlen);
  w.u8(plen);
  w.u16(op);
  w.bytes(hwsrc.bytes);
  w.bytes(psrc.bytes);
  w.bytes(hwdst.bytes);
  w.bytes(pdst.bytes);
}

std::vector<uint8_t> build_arp_frame(const Arp& arp) {
  std::vector<uint8_t> frame;
  frame.reserve(kMinEthernetFrame);
  wire::ByteWriter w(frame);
  wire::Ether{arp.op == Arp::kRequest ? kBroadcast : arp.hwdst, arp.hwsrc, kEtherTypeArp}.write(w);
  arp.write(w);
  if (frame.size() < kMinEthernetFrame) w.zeros(kMinEthernetFrame - frame.size());
  return frame;
}

}  // namespace mr::io
