#include "reference/wire/icrc.h"

#include <algorithm>
#include <array>
#include <bit>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
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
constexpr size_t kFoldBytes = 64;  // the carry-less path needs at least one 64-byte block
// At least the largest IPv4 header + UDP + BTH, so every masked field is in the copy.
constexpr size_t kCopiedPrefix = 256;
static_assert(kCopiedPrefix >= kMaxIpv4Size + kUdpSize + kBthSize);

#if defined(__x86_64__)
// Carry-less multiplication folding (Intel, "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ", 2009): four 128-bit lanes fold 64 bytes per step; the constants are
// x^(512±32) and x^(128±32) mod P in the reflected domain for the IEEE polynomial. The
// folded 16 bytes and the tail finish through the tables.
__attribute__((target("pclmul,sse4.1"))) inline __m128i fold(__m128i x, __m128i k, __m128i d) {
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d);
}

__attribute__((target("pclmul,sse4.1"))) uint32_t update_clmul(uint32_t c, const uint8_t* p,
                                                               size_t n) {
  const __m128i k512 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);
  const __m128i k128 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
  auto load = [](const uint8_t* at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  };
  __m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(c)));
  __m128i x1 = load(p + 16);
  __m128i x2 = load(p + 32);
  __m128i x3 = load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x0 = fold(x0, k512, load(p));
    x1 = fold(x1, k512, load(p + 16));
    x2 = fold(x2, k512, load(p + 32));
    x3 = fold(x3, k512, load(p + 48));
  }
  x0 = fold(fold(fold(x0, k128, x1), k128, x2), k128, x3);
  for (; n >= 16; p += 16, n -= 16) x0 = fold(x0, k128, load(p));
  std::array<uint8_t, 16> folded;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(folded.data()), x0);
  return IcrcCalculator::update_tables(IcrcCalculator::update_tables(0, folded), std::span(p, n));
}

const bool kHasClmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#else
constexpr bool kHasClmul = false;
#endif

}  // namespace

uint32_t IcrcCalculator::update(uint32_t c, std::span<const uint8_t> bytes) {
#if defined(__x86_64__)
  if (bytes.size() >= 64 && kHasClmul) return update_clmul(c, bytes.data(), bytes.size());
#endif
  return update_tables(c, bytes);
}

uint32_t IcrcCalculator::update_tables(uint32_t c, std::span<const uint8_t> bytes) {
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
  if (bytes.size() < 4) return 0;
  const bool v6 = (bytes[0] >> 4) == 6;
  const size_t ip_size = v6 ? kIpv6Size : size_t{bytes[0] & 0x0fU} * 4;

  // Mask a private copy of the first bytes (they hold every variant field); the copy is
  // long enough that a small packet is one contiguous run for the fast path.
  //
  // A packet shorter than one 64-byte fold is right-aligned behind zeros: a CRC register
  // of 0 stays 0 over zero bytes, and a register S before data D equals a register of 0
  // before D with S XORed into its first four bytes. So every packet takes the fast path.
  std::array<uint8_t, kFoldBytes + kCopiedPrefix> buf;
  const size_t prefix = std::min(bytes.size(), kCopiedPrefix);
  const size_t lead = (kHasClmul && bytes.size() < kFoldBytes) ? kFoldBytes - bytes.size() : 0;
  std::memset(buf.data(), 0, lead);
  uint8_t* head = buf.data() + lead;
  std::memcpy(head, bytes.data(), prefix);
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

  uint32_t c = kStateAfterLrh;
  if (lead > 0) {
    for (int i = 0; i < 4; ++i) head[i] ^= static_cast<uint8_t>(c >> (8 * i));
    c = 0;
  }
  c = update(c, std::span(buf.data(), lead + prefix));
  c = update(c, bytes.subspan(prefix));
  const uint32_t crc = ~c;
  return __builtin_bswap32(crc);  // wire order is LSB first; report it read big-endian
}

}  // namespace mr::wire
