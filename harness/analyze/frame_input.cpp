#include "harness/analyze/frame_input.h"

#include <cstddef>
#include <utility>
#include <variant>

#include "harness/analyze/packet_comment.h"

namespace mr::analyze {
namespace {

IpAddress ip_of(const wire::Ipv4Address& a) {
  IpAddress r;
  for (size_t i = 0; i < 4; ++i) r.bytes[i] = a.bytes[i];
  return r;
}
IpAddress ip_of(const wire::Ipv6Address& a) { return IpAddress{a.bytes, true}; }

DirectionKey key_of(const wire::RocePacket& p) {
  DirectionKey k;
  std::visit(
      [&](const auto& ip) {
        k.src = ip_of(ip.src);
        k.dst = ip_of(ip.dst);
      },
      p.ip);
  k.dqpn = p.bth.dqpn.value();
  return k;
}

}  // namespace

void decode_frame_input(const io::CapturedFrame& frame, std::string_view comment, FrameInput& out) {
  if (frame.link_type != io::kLinkTypeEthernet) {
    out.kind = FrameInput::Kind::kNotEthernet;
    return;
  }
  if (frame.original_length > frame.data.size()) {
    out.kind = FrameInput::Kind::kSnapped;
    return;
  }
  decode_bytes_input(frame.data, frame.timestamp_ns, is_tester_comment(comment), out);
}

void decode_bytes_input(std::span<const uint8_t> bytes, uint64_t time_ns, bool by_tester,
                        FrameInput& out) {
  out.bytes = bytes;
  out.time_ns = time_ns;
  out.by_tester = by_tester;
  if (auto ok = wire::decode_frame_into(bytes, out.decoded); !ok) {
    out.kind = FrameInput::Kind::kMalformed;
    out.error = std::move(ok.error());
    return;
  }
  out.kind = FrameInput::Kind::kDecoded;
  if (const auto* roce = std::get_if<wire::DecodedRoce>(&out.decoded)) {
    out.key = key_of(roce->packet);
    out.key_hash = hash_of(out.key);
  }
}

}  // namespace mr::analyze
