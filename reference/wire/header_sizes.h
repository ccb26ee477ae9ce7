// File: header_sizes.h
//
// Wire sizes of the RoCEv2 transport headers, in bytes (IBTA vol. 1, ch. 9.3 and 9.4).
#pragma once

namespace mr::wire {

inline constexpr unsigned kBthSize = 12;
inline constexpr unsigned kRdethSize = 4;
inline constexpr unsigned kDethSize = 8;
inline constexpr unsigned kFethSize = 4;
inline constexpr unsigned kRethSize = 16;
inline constexpr unsigned kAtomicEthSize = 28;
inline constexpr unsigned kImmDtSize = 4;
inline constexpr unsigned kIethSize = 4;
inline constexpr unsigned kAethSize = 4;
inline constexpr unsigned kAtomicAckEthSize = 8;
inline constexpr unsigned kCnpPaddingSize = 16;
inline constexpr unsigned kIcrcSize = 4;

}  // namespace mr::wire
