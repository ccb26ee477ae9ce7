// libFuzzer target: arbitrary bytes as an Ethernet frame.
//
// Beyond "no crash, no sanitizer report", it checks the codec's round trip: any frame that
// decodes as RoCE must rebuild, with the builder's fills off, to bytes that decode to the
// same headers and the same ICRC verdict.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/packet_json.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mr::wire;
  const auto decoded = decode_frame(std::span(data, size));
  if (!decoded) {
    check(decoded.error().offset <= size);
    (void)to_json(decoded.error()).dump();
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
