#include "reference/wire/icrc.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "reference/wire/header_sizes.h"

namespace mr::wire {
namespace {

constexpr uint32_t kPolynomial = 0xedb88320;  // IEEE 802.3, reflected

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
  return t;
}

constexpr Tables kTables = make_tables();

// CRC register after the eight 0xFF bytes that replace the LRH (rxe's 0xDEBB20E3).
constexpr uint32_t state_after_lrh() {
  uint32_t c = 0xffffffff;
  for (int i = 0; i < 8; ++i) c = (c >> 8) ^ kTables[0][(c ^ 0xff) & 0xff];
  return c;
}
constexpr uint32_t kStateAfterLrh = state_after_lrh();
static_assert(kStateAfterLrh == 0xdebb20e3, "ICRC seed differs from Linux rxe's");

constexpr size_t kUdpSize = 8;
constexpr size_t kIpv6Size = 40;
constexpr size_t kMaxIpv4Size = 60;
constexpr size_t kMaxMaskedPrefix = kMaxIpv4Size + kUdpSize + kBthSize;

}  // namespace

uint32_t IcrcCalculator::update(uint32_t c, std::span<const uint8_t> bytes) {
  const uint8_t* p = bytes.data();
  size_t n = bytes.size();
  while (n >= 8) {
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    if constexpr (std::endian::native == std::endian::big) {
      lo = __builtin_bswap32(lo);
      hi = __builtin_bswap32(hi);
    }
    lo ^= c;
    c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
        kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xff];
  return c;
}

uint32_t IcrcCalculator::icrc(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return 0;
  const bool v6 = (bytes[0] >> 4) == 6;
  const size_t ip_size = v6 ? kIpv6Size : size_t{bytes[0] & 0x0fU} * 4;
  const size_t prefix = std::min(bytes.size(), ip_size + kUdpSize + kBthSize);

  // Mask a private copy of the variant fields; the rest is read in place.
  std::array<uint8_t, kMaxMaskedPrefix> head{};
  std::memcpy(head.data(), bytes.data(), prefix);
  auto ones = [&](size_t at, size_t n) {
    for (size_t i = at; i < at + n && i < prefix; ++i) head[i] = 0xff;
  };
  if (v6) {
    head[0] |= 0x0f;  // traffic class, high nibble
    ones(1, 3);       // traffic class low nibble + flow label
    ones(7, 1);       // hop limit
  } else {
    ones(1, 1);   // tos
    ones(8, 1);   // ttl
    ones(10, 2);  // header checksum
  }
  ones(ip_size + 6, 2);             // UDP checksum
  ones(ip_size + kUdpSize + 4, 1);  // BTH fecn, becn, resv6

  uint32_t c = update(kStateAfterLrh, std::span(head.data(), prefix));
  c = update(c, bytes.subspan(prefix));
  const uint32_t crc = ~c;
  return __builtin_bswap32(crc);  // wire order is LSB first; report it read big-endian
}

}  // namespace mr::wire
