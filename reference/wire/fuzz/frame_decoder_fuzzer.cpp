// libFuzzer target: arbitrary bytes as an Ethernet frame, and as the same frame in a Linux
// cooked capture (SLL and SLL2).
//
// Beyond "no crash, no sanitizer report", it checks:
// - the codec's round trip: any frame that decodes as RoCE must rebuild, with the builder's
//   fills off, to bytes that decode to the same headers and the same ICRC verdict;
// - that a refused frame's parsed prefix and error agree with the plain decode's error;
// - that a cooked frame decodes as its Ethernet original: same kind, same headers, same
//   ICRC verdict, errors naming the same header and field.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/packet_json.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> frame(data, size);
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

  const auto rebuilt = build_frame(roce->packet, {.fill_lengths = false,
                                                  .fill_ip_checksum = false,
                                                  .fill_padding = false,
                                                  .fill_icrc = false});
  const auto again = decode_frame(rebuilt);
  check(again.has_value());
  const auto* r2 = std::get_if<DecodedRoce>(&*again);
  check(r2 != nullptr);
  check(r2->packet.bth == roce->packet.bth);
  check(r2->packet.udp == roce->packet.udp);
  check(r2->packet.reth == roce->packet.reth);
  check(r2->packet.aeth == roce->packet.aeth);
  check(r2->packet.atomic_eth == roce->packet.atomic_eth);
  check(r2->packet.payload.size() == roce->packet.payload.size());
  check(r2->icrc_ok() == roce->icrc_ok());
  return 0;
}
