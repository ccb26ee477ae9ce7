#include "harness/analyze/frame_input.h"

#include <bit>
#include <cstddef>
#include <cstring>
#include <optional>
#include <utility>
#include <variant>

#include "harness/analyze/packet_comment.h"

namespace mr::analyze {
namespace {

// An IPv4 address as the first word of an IpAddress: its 4 bytes, then zeros, in memory.
uint64_t ipv4_word(const wire::Ipv4Address& a) {
  uint32_t v;
  std::memcpy(&v, a.bytes.data(), 4);
  if constexpr (std::endian::native == std::endian::little) return v;
  return uint64_t{v} << 32;
}

// Stores one address word; an 8-byte store the later 8- or 16-byte loads can forward from.
void store_word(uint8_t* to, uint64_t word) { std::memcpy(to, &word, sizeof word); }

// Sets the frame's direction key and its hash. The addresses go through words held in
// registers and are stored word by word: hashing a key just written in narrower pieces, or
// copying a 16-byte block out of a word array just stored on the stack, stalled on
// store-to-load forwarding (a wide load cannot take its bytes from several smaller stores).
void set_key(const wire::RocePacket& p, FrameInput& out) {
  AddressWords w{};
  bool v6 = false;
  if (const auto* ip4 = std::get_if<wire::Ipv4>(&p.ip)) {
    w[0] = ipv4_word(ip4->src);
    w[2] = ipv4_word(ip4->dst);
  } else {
    const auto& ip6 = std::get<wire::Ipv6>(p.ip);
    std::memcpy(&w[0], ip6.src.bytes.data(), 8);
    std::memcpy(&w[1], ip6.src.bytes.data() + 8, 8);
    std::memcpy(&w[2], ip6.dst.bytes.data(), 8);
    std::memcpy(&w[3], ip6.dst.bytes.data() + 8, 8);
    v6 = true;
  }
  const uint32_t dqpn = p.bth.dqpn.value();
  store_word(out.key.src.bytes.data(), w[0]);
  store_word(out.key.src.bytes.data() + 8, w[1]);
  store_word(out.key.dst.bytes.data(), w[2]);
  store_word(out.key.dst.bytes.data() + 8, w[3]);
  out.key.src.v6 = out.key.dst.v6 = v6;
  out.key.dqpn = dqpn;
  out.key_hash = hash_of_words(w, dqpn, v6);
}

}  // namespace

void decode_frame_input(const io::CapturedFrame& frame, FrameInput& out) {
  const std::optional<wire::Framing> framing = io::framing_of(frame.link_type);
  if (!framing) {
    out.kind = FrameInput::Kind::kUnreadableLink;
    return;
  }
  if (frame.original_length > frame.data.size()) {
    out.kind = FrameInput::Kind::kSnapped;
    return;
  }
  decode_bytes_input(frame.data, frame.timestamp_ns, is_tester_comment(frame.comment), out,
                     *framing);
}

void decode_bytes_input(std::span<const uint8_t> bytes, uint64_t time_ns, bool by_tester,
                        FrameInput& out, wire::Framing framing) {
  out.bytes = bytes;
  out.time_ns = time_ns;
  out.by_tester = by_tester;
  if (auto ok = wire::decode_frame_into(bytes, framing, out.decoded); !ok) {
    out.kind = FrameInput::Kind::kMalformed;
    out.error = std::move(ok.error().error);
    out.depth = ok.error().depth;
    return;
  }
  out.kind = FrameInput::Kind::kDecoded;
  if (const auto* roce = std::get_if<wire::DecodedRoce>(&out.decoded)) {
    set_key(roce->packet, out);
  }
}

}  // namespace mr::analyze
