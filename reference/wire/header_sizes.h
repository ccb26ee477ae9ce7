// File: header_sizes.h
//
// Wire sizes of the RoCEv2 transport headers, in bytes (IBTA vol. 1, ch. 9.3 and 9.4), and
// of the MetaRoCE Part II headers (spec sections 19, 22.3, 26.8).
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

inline constexpr unsigned kMxhSize = 20;
inline constexpr unsigned kSackethSize = 28;
inline constexpr unsigned kCrethSize = 4;
inline constexpr unsigned kRsynethSize = 4;
inline constexpr unsigned kSechSize = 24;
inline constexpr unsigned kSecTagSize = 16;

}  // namespace mr::wire
