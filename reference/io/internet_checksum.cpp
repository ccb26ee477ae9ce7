#include "reference/io/internet_checksum.h"

#include <array>

namespace mr::io {

uint32_t checksum_add(uint32_t sum, std::span<const uint8_t> bytes) {
  size_t i = 0;
  for (; i + 1 < bytes.size(); i += 2) sum += uint32_t{bytes[i]} << 8 | bytes[i + 1];
  if (i < bytes.size()) sum += uint32_t{bytes[i]} << 8;
  // Fold now and then so that a long message cannot overflow 32 bits.
  return (sum & 0xffff) + (sum >> 16);
}

uint16_t checksum_finish(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

uint16_t ipv6_upper_layer_checksum(const wire::Ipv6Address& src, const wire::Ipv6Address& dst,
                                   uint8_t next_header, std::span<const uint8_t> message) {
  const auto length = static_cast<uint32_t>(message.size());
  const std::array<uint8_t, 8> tail = {static_cast<uint8_t>(length >> 24),
                                       static_cast<uint8_t>(length >> 16),
                                       static_cast<uint8_t>(length >> 8),
                                       static_cast<uint8_t>(length),
                                       0,
                                       0,
                                       0,
                                       next_header};
  uint32_t sum = checksum_add(0, src.bytes);
  sum = checksum_add(sum, dst.bytes);
  sum = checksum_add(sum, tail);
  sum = checksum_add(sum, message);
  return checksum_finish(sum);
}

}  // namespace mr::io
