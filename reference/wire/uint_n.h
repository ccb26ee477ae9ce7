// File: uint_n.h
//
// `UInt<N>`: an unsigned wire field N bits wide. The width lives in the type so that a
// 24-bit PSN can never silently become a u8 (the `__rdeth_een` class of bug). Values are
// taken modulo 2^N on construction, which is exactly the wire's arithmetic for PSN and MSN.
#pragma once

#include <cstdint>
#include <type_traits>

namespace mr::wire {

template <unsigned N>
class UInt {
  static_assert(N >= 1 && N <= 64);

 public:
  using Rep = std::conditional_t<
      (N <= 8), uint8_t,
      std::conditional_t<(N <= 16), uint16_t, std::conditional_t<(N <= 32), uint32_t, uint64_t>>>;
  static constexpr unsigned kBits = N;
  static constexpr Rep kMax = N == 64 ? ~Rep{0} : static_cast<Rep>((uint64_t{1} << (N % 64)) - 1);

  constexpr UInt() = default;
  // Implicit by design: header literals read like the wire (`bth.psn = 0xabcd`).
  constexpr UInt(uint64_t v) : v_(static_cast<Rep>(v & kMax)) {}  // NOLINT
  constexpr operator Rep() const { return v_; }                   // NOLINT
  constexpr Rep value() const { return v_; }
  // True when v is representable without wrapping: used to reject out-of-range input.
  static constexpr bool fits(uint64_t v) { return v <= kMax; }

 private:
  Rep v_ = 0;
};

using u1 = UInt<1>;
using u2 = UInt<2>;
using u3 = UInt<3>;
using u4 = UInt<4>;
using u6 = UInt<6>;
using u7 = UInt<7>;
using u8 = UInt<8>;
using u12 = UInt<12>;
using u13 = UInt<13>;
using u16 = UInt<16>;
using u20 = UInt<20>;
using u24 = UInt<24>;
using u32 = UInt<32>;
using u64 = UInt<64>;

}  // namespace mr::wire
