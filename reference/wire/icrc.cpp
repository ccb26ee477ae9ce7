#include "reference/wire/icrc.h"

#include <algorithm>
#include <array>
#include <bit>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <isa-l/crc.h>

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

// ISA-L's crc32_gzip_refl is this CRC (reflected IEEE) with the register inverted before and
// after, and folds 256 bytes a step with VPCLMULQDQ where the CPU has it (AVX-512): about 4
// times our 64-byte SSE folding from 1 KiB up on this project's machines, and level with it at
// 64 bytes; below that our folding or tables (docs/performance.md, bench codec).
constexpr size_t kIsalFrom = 64;
inline uint32_t update_isal(uint32_t c, const uint8_t* p, size_t n) {
  return ~crc32_gzip_refl(~c, p, n);
}

constexpr size_t kUdpSize = 8;
constexpr size_t kIpv6Size = 40;
constexpr size_t kMaxIpv4Size = 60;
constexpr size_t kBlock = 16;  // one 128-bit fold step
// The variant bytes of a packet's first kMaskedBlocks blocks as a mask (ones where the ICRC
// sets them), behind one block of zeros: in the folding path a block's mask is one unaligned
// load at the block's packet offset, which starts up to 15 bytes before the packet. Six
// blocks hold the BTH byte behind the largest IPv4 header and 15 leading zeros.
constexpr size_t kMaskedBlocks = 6;
using PaddedMask = std::array<uint8_t, kBlock*(kMaskedBlocks + 1)>;
constexpr PaddedMask make_mask(bool v6, size_t ip_size) {
  PaddedMask m{};
  auto ones = [&m](size_t at) { m[kBlock + at] = 0xff; };
  if (v6) {
    m[kBlock] = 0x0f;                         // traffic class, high nibble
    for (size_t at : {1, 2, 3, 7}) ones(at);  // traffic class low nibble, flow label, hop limit
  } else {
    for (size_t at : {1, 8, 10, 11}) ones(at);  // tos, ttl, header checksum
  }
  // UDP checksum; BTH fecn, becn, resv6.
  for (size_t at : {ip_size + 6, ip_size + 7, ip_size + kUdpSize + 4}) ones(at);
  return m;
}
constexpr PaddedMask kMaskIpv4 = make_mask(false, 20);
constexpr PaddedMask kMaskIpv6 = make_mask(true, kIpv6Size);
static_assert(kMaxIpv4Size + kUdpSize + 4 < kMaskedBlocks * kBlock - (kBlock - 1));

#if defined(__x86_64__)
// Carry-less multiplication folding (Intel, "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ", 2009), in the reflected domain for the IEEE polynomial: four 128-bit
// lanes fold 64 bytes per step (constants x^(512±32) mod P), one lane folds 16 (x^(128±32)
// mod P), and a Barrett reduction takes the last 128 bits to the 32-bit register, so no
// table lookup is left on the fast path.
#define MR_CLMUL __attribute__((target("pclmul,sse4.1")))

MR_CLMUL inline __m128i fold(__m128i x, __m128i k, __m128i d) {
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d);
}

MR_CLMUL inline __m128i load(const uint8_t* at) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

MR_CLMUL inline __m128i k512() { return _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL); }
MR_CLMUL inline __m128i k128() { return _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL); }

// The CRC register after the 16 bytes that `x` holds, from a register of 0.
MR_CLMUL uint32_t reduce(__m128i x) {
  const __m128i low32 = _mm_set_epi32(0, -1, 0, -1);
  // 128 -> 96 bits: the low half times x^64 mod P, added to the high half.
  x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, k128(), 0x10));
  // 96 -> 64 bits: the low 32 bits times x^32 mod P, added to the rest.
  const __m128i k32 = _mm_set_epi64x(0, 0x163cd6124LL);
  x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), k32, 0));
  // Barrett: the quotient by P from mu = x^64 / P, then the remainder.
  const __m128i p_mu = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL);
  __m128i q = _mm_clmulepi64_si128(_mm_and_si128(x, low32), p_mu, 0x10);
  q = _mm_clmulepi64_si128(_mm_and_si128(q, low32), p_mu, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(x, q), 1));
}

// Folds `n` bytes (a multiple of 64) at p into `x`, which holds the 16 bytes before them.
MR_CLMUL __m128i fold_64s(__m128i x, const uint8_t* p, size_t n) {
  __m128i x0 = fold(x, k128(), load(p));  // x is the block just before lane 0
  __m128i x1 = load(p + 16);
  __m128i x2 = load(p + 32);
  __m128i x3 = load(p + 48);
  for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
    x0 = fold(x0, k512(), load(p));
    x1 = fold(x1, k512(), load(p + 16));
    x2 = fold(x2, k512(), load(p + 32));
    x3 = fold(x3, k512(), load(p + 48));
  }
  return fold(fold(fold(x0, k128(), x1), k128(), x2), k128(), x3);
}

// Folds the whole blocks of p[0, n) into `x`: 64 bytes at a time while they last.
MR_CLMUL __m128i fold_blocks(__m128i x, const uint8_t* p, size_t n) {
  if (n >= 64) {
    const size_t wide = n & ~size_t{63};
    x = fold_64s(x, p, wide);
    p += wide;
    n -= wide;
  }
  for (; n >= kBlock; p += kBlock, n -= kBlock) x = fold(x, k128(), load(p));
  return x;
}

// CRC register update for n >= 16: the blocks fold, the tail (n % 16) goes through tables.
MR_CLMUL uint32_t update_clmul(uint32_t c, const uint8_t* p, size_t n) {
  const __m128i first = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(c)));
  const size_t blocks = n & ~(kBlock - 1);
  const uint32_t folded = reduce(fold_blocks(first, p + kBlock, blocks - kBlock));
  return IcrcCalculator::update_tables(folded, std::span(p + blocks, n - blocks));
}

// Three blocks: behind 13 or more zeros, the seed's last bytes fall in block 1.
using PaddedSeed = std::array<uint8_t, 3 * kBlock>;
constexpr PaddedSeed make_seed() {
  PaddedSeed s{};
  for (size_t i = 0; i < 4; ++i) s[kBlock + i] = static_cast<uint8_t>(kStateAfterLrh >> (8 * i));
  return s;
}
constexpr PaddedSeed kSeed = make_seed();

// Shuffle controls: loaded at kBlock - lead, they move a block's bytes up by `lead` and
// zero the bytes below (0x80 selects zero).
constexpr std::array<uint8_t, 2 * kBlock> make_shift() {
  std::array<uint8_t, 2 * kBlock> s{};
  for (size_t i = 0; i < kBlock; ++i) {
    s[i] = 0x80;
    s[kBlock + i] = static_cast<uint8_t>(i);
  }
  return s;
}
constexpr std::array<uint8_t, 2 * kBlock> kShift = make_shift();

// The ICRC register over a packet of n >= 16 bytes whose variant bytes `mask` names, read in
// place as whole blocks behind `lead` zeros: block 0 is shifted into place by a byte
// shuffle, masks and seed are ORed and XORed in registers. (A masked copy in memory made
// every block load wait on the byte stores before it: store-to-load forwarding fails.)
MR_CLMUL uint32_t icrc_in_place(const uint8_t* p, size_t n, const PaddedMask& mask) {
  const size_t lead = (kBlock - n % kBlock) % kBlock;
  const size_t blocks = (lead + n) / kBlock;
  const uint8_t* m = mask.data() + kBlock - lead;   // block j's mask at m + j * kBlock
  const uint8_t* s = kSeed.data() + kBlock - lead;  // and its seed at s + j * kBlock
  __m128i x = _mm_shuffle_epi8(load(p), load(kShift.data() + kBlock - lead));
  x = _mm_xor_si128(_mm_or_si128(x, load(m)), load(s));
  const uint8_t* at = p + kBlock - lead;  // block 1
  size_t j = 1;
  if (blocks > 1) {
    const __m128i d = _mm_or_si128(load(at), load(m + kBlock));
    x = fold(x, k128(), _mm_xor_si128(d, load(s + kBlock)));
    ++j;
    at += kBlock;
  }
  for (; j < blocks && j < kMaskedBlocks; ++j, at += kBlock) {
    x = fold(x, k128(), _mm_or_si128(load(at), load(m + j * kBlock)));
  }
  // The masked head is done; a long rest goes to ISA-L from the reduced register.
  const size_t rest = (blocks - j) * kBlock;
  if (rest >= kIsalFrom) return update_isal(reduce(x), at, rest);
  return reduce(fold_blocks(x, at, rest));
}
#undef MR_CLMUL

const bool kHasClmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#else
constexpr bool kHasClmul = false;
#endif

}  // namespace

uint32_t IcrcCalculator::update(uint32_t c, std::span<const uint8_t> bytes) {
  if (bytes.size() >= kIsalFrom) return update_isal(c, bytes.data(), bytes.size());
#if defined(__x86_64__)
  if (bytes.size() >= kBlock && kHasClmul) return update_clmul(c, bytes.data(), bytes.size());
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

namespace {

// The ICRC register of a packet whose variant fields `mask` names, through the tables: a
// masked copy of the first bytes, then the rest in place. Out of line, as the slow path: its
// copy needs a stack frame the common path (icrc_in_place) does not.
[[gnu::noinline]] uint32_t icrc_register_tables(std::span<const uint8_t> bytes,
                                                const PaddedMask& mask) {
  std::array<uint8_t, kMaskedBlocks * kBlock> head;
  const size_t prefix = std::min(bytes.size(), head.size());
  std::memcpy(head.data(), bytes.data(), prefix);
  for (size_t i = 0; i < prefix; ++i) head[i] |= mask[kBlock + i];
  return IcrcCalculator::update(
      IcrcCalculator::update_tables(kStateAfterLrh, std::span(head.data(), prefix)),
      bytes.subspan(prefix));
}

// The ICRC register of a packet whose variant fields `mask` names.
inline uint32_t icrc_register(std::span<const uint8_t> bytes, const PaddedMask& mask) {
#if defined(__x86_64__)
  if (kHasClmul && bytes.size() >= kBlock) return icrc_in_place(bytes.data(), bytes.size(), mask);
#endif
  return icrc_register_tables(bytes, mask);
}

// IPv4 with options: the mask built for this header length (rare; its mask is a local).
[[gnu::noinline]] uint32_t icrc_register_ipv4_options(std::span<const uint8_t> bytes,
                                                      size_t ip_size) {
  return icrc_register(bytes, make_mask(false, ip_size));
}

}  // namespace

uint32_t IcrcCalculator::icrc(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return 0;
  const bool v6 = (bytes[0] >> 4) == 6;
  const size_t ip_size = v6 ? kIpv6Size : size_t{bytes[0] & 0x0fU} * 4;
  const uint32_t c = v6 || ip_size == 20 ? icrc_register(bytes, v6 ? kMaskIpv6 : kMaskIpv4)
                                         : icrc_register_ipv4_options(bytes, ip_size);
  return __builtin_bswap32(~c);  // wire order is LSB first; report it read big-endian
}

}  // namespace mr::wire
