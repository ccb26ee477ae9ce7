#include "reference/io/fabric/packet_trimmer.h"

#include <algorithm>
#include <span>

#include "reference/io/internet_checksum.h"

namespace mr::io::fabric {
namespace {

void put16(std::vector<uint8_t>& frame, size_t at, size_t value) {
  frame[at] = static_cast<uint8_t>(value >> 8);
  frame[at + 1] = static_cast<uint8_t>(value);
}

}  // namespace

bool trim_frame(std::vector<uint8_t>& frame, const FrameHeaders& headers, const Trimming& trimming,
                uint8_t dscp) {
  const size_t l3 = headers.l3_offset;
  const size_t keep = std::min(frame.size(), l3 + trimming.ip_bytes);
  const bool cut = keep < frame.size();
  frame.resize(keep);
  set_dscp(frame, headers, dscp);
  const size_t ip_bytes = keep - l3;
  const size_t udp_at = l3 + headers.ip_header_bytes;
  if (trimming.rewrite_lengths) {
    put16(frame, headers.ipv6 ? l3 + 4 : l3 + 2,
          headers.ipv6 ? ip_bytes - headers.ip_header_bytes : ip_bytes);
    // A trim size inside the UDP header (IPv4 with options) leaves no length to rewrite.
    if (headers.udp && udp_at + 8 <= keep) put16(frame, udp_at + 4, keep - udp_at);
  }
  if (!headers.ipv6 && trimming.recompute_ipv4_checksum) {
    frame[l3 + 10] = 0;
    frame[l3 + 11] = 0;
    put16(frame, l3 + 10,
          io::internet_checksum(std::span(frame).subspan(l3, headers.ip_header_bytes)));
  }
  return cut;
}

}  // namespace mr::io::fabric
