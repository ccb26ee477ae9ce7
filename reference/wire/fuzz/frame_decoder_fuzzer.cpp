// libFuzzer target: arbitrary bytes as an Ethernet frame, and as the same frame in a Linux
// cooked capture (SLL and SLL2).
//
// Beyond "no crash, no sanitizer report", it checks:
// - the codec's round trip: any frame that decodes as RoCE must rebuild, with the builder's
//   fills off, to its own IP datagram byte for byte, which decodes to the same headers
//   (every Base and Ext header, SECH and SecTag, payload and pad bytes) and the same ICRC
//   verdict, and rebuilds to the same bytes again (a fixed point);
// - that a refused frame's parsed prefix and error agree with the plain decode's error;
// - that a cooked frame decodes as its Ethernet original: same kind, same headers, same
//   ICRC verdict, errors naming the same header and field;
// - that the trimmed-frame reader (spec section 23) reads any bytes without a fault, and
//   reads a frame the decoder takes as RoCE to the same BTH and extended headers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/packet_json.h"
#include "reference/wire/trimmed_frame.h"

namespace {

using namespace mr::wire;

void check(bool condition) {
  if (!condition) std::abort();
}

// The Ethernet frame with its header replaced by a cooked one carrying its ethertype.
std::vector<uint8_t> as_cooked(std::span<const uint8_t> frame, Framing framing) {
  const uint8_t hi = frame[12];
  const uint8_t lo = frame[13];
  std::vector<uint8_t> out;
  if (framing == Framing::kLinuxSll) {
    out = {0, 4, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, hi, lo};
  } else {
    out = {hi, lo, 0, 0, 0, 0, 0, 7, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0};
  }
  out.insert(out.end(), frame.begin() + 14, frame.end());
  return out;
}

void check_cooked_matches(std::span<const uint8_t> frame,
                          const mr::Expected<DecodedFrame, MalformedFrame>& ethernet,
                          Framing framing) {
  const auto cooked_frame = as_cooked(frame, framing);
  const auto cooked = decode_frame(cooked_frame, framing);
  check(cooked.has_value() == ethernet.has_value());
  if (!ethernet) {
    (void)to_json(cooked.error()).dump();
    check(cooked.error().error.header == ethernet.error().error.header);
    check(cooked.error().error.field == ethernet.error().error.field);
    check(cooked.error().depth == ethernet.error().depth);
    return;
  }
  check(cooked->index() == ethernet->index());
  const auto* e = std::get_if<DecodedRoce>(&*ethernet);
  if (!e) return;
  const auto& c = std::get<DecodedRoce>(*cooked);
  (void)to_json(c).dump();
  check(c.packet.vlan == e->packet.vlan);
  check(c.packet.ip == e->packet.ip);
  check(c.packet.udp == e->packet.udp);
  check(c.packet.bth == e->packet.bth);
  check(c.packet.payload.size() == e->packet.payload.size());
  check(c.icrc_ok() == e->icrc_ok());
}

// Every header of the two packets, Base and Ext (table 19.1, SECH, SecTag), and the bytes
// of payload and pad.
bool same_headers(const RocePacket& a, const RocePacket& b) {
  auto same_bytes = [](std::span<const uint8_t> x, std::span<const uint8_t> y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end());
  };
  return a.eth == b.eth && a.vlan == b.vlan && a.ip == b.ip && a.udp == b.udp && a.bth == b.bth &&
         a.sech == b.sech && a.rdeth == b.rdeth && a.deth == b.deth && a.feth == b.feth &&
         a.mxh == b.mxh && a.reth == b.reth && a.atomic_eth == b.atomic_eth &&
         a.imm_dt == b.imm_dt && a.ieth == b.ieth && a.aeth == b.aeth &&
         a.atomic_ack_eth == b.atomic_ack_eth && a.sacketh == b.sacketh && a.creth == b.creth &&
         a.rsyneth == b.rsyneth && a.cnp_padding == b.cnp_padding && a.sec_tag == b.sec_tag &&
         a.icrc == b.icrc && same_bytes(a.payload, b.payload) && same_bytes(a.pad, b.pad);
}

// The frame offset just past the IP datagram of a decoded frame.
size_t datagram_end(const DecodedRoce& d) {
  if (const auto* v4 = std::get_if<Ipv4>(&d.packet.ip)) return d.l3_offset + v4->len;
  return d.l3_offset + Ipv6::kSize + std::get<Ipv6>(d.packet.ip).plen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> frame(data, size);
  const auto trimmed = read_trimmed_frame(frame);
  if (trimmed) check(trimmed->ip_bytes_held <= size);
  const auto decoded = decode_frame(frame);
  const auto kept = decode_frame(frame, Framing::kEthernet);
  check(decoded.has_value() == kept.has_value());
  if (size >= Ether::kSize) {
    check_cooked_matches(frame, kept, Framing::kLinuxSll);
    check_cooked_matches(frame, kept, Framing::kLinuxSll2);
  }
  if (!decoded) {
    check(decoded.error().offset <= size);
    check(kept.error().error.to_string() == decoded.error().to_string());
    (void)to_json(decoded.error()).dump();
    (void)to_json(kept.error()).dump();
    return 0;
  }
  const auto* roce = std::get_if<DecodedRoce>(&*decoded);
  if (!roce) return 0;
  (void)to_json(*roce).dump();
  check(trimmed.has_value());
  check(trimmed->packet.bth == roce->packet.bth);
  check(trimmed->packet.mxh.has_value() == roce->packet.mxh.has_value());
  check(trimmed->packet.reth.has_value() == roce->packet.reth.has_value());

  const BuildOptions as_decoded{.fill_ip_length = false,
                                .fill_udp_length = false,
                                .fill_ip_checksum = false,
                                .fill_padding = false,
                                .fill_icrc = false};
  const auto rebuilt = build_frame(roce->packet, as_decoded);
  // Byte for byte the frame's IP datagram (what follows it, Ethernet padding, is not read).
  check(rebuilt.size() == datagram_end(*roce));
  check(std::equal(rebuilt.begin(), rebuilt.end(), frame.begin()));
  const auto again = decode_frame(rebuilt);
  check(again.has_value());
  const auto* r2 = std::get_if<DecodedRoce>(&*again);
  check(r2 != nullptr);
  check(same_headers(r2->packet, roce->packet));
  check(r2->opcode_known == roce->opcode_known);
  check(r2->icrc_ok() == roce->icrc_ok());
  // And a fixed point: decode -> build of the rebuilt frame gives the same bytes.
  check(build_frame(r2->packet, as_decoded) == rebuilt);
  return 0;
}
