#include "harness/analyze/frame_input.h"

#include <utility>

#include "harness/analyze/packet_comment.h"

namespace mr::analyze {

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
}

}  // namespace mr::analyze
