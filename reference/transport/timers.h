// File: timers.h
//
// The two timer encodings of the RC transport, in nanoseconds:
//   local ACK timeout: 4.096 us x 2^timeout (IBTA 9.7.6.1.3; timeout 0 = no timer)
//   RNR NAK timer: IBTA table 45, the 5-bit code carried in the RNR NAK syndrome
#pragma once

#include <array>
#include <cstdint>

namespace mr::transport {

constexpr uint64_t ack_timeout_ns(uint8_t timeout) {
  return timeout == 0 ? 0 : uint64_t{4096} << (timeout & 0x1f);
}

// Code 0 is the longest delay, 655.36 ms; codes 1..31 grow from 10 us to 491.52 ms.
inline constexpr std::array<uint64_t, 32> kRnrDelayNs{
    655'360'000, 10'000,      20'000,      30'000,     40'000,     60'000,     80'000,
    120'000,     160'000,     240'000,     320'000,    480'000,    640'000,    960'000,
    1'280'000,   1'920'000,   2'560'000,   3'840'000,  5'120'000,  7'680'000,  10'240'000,
    15'360'000,  20'480'000,  30'720'000,  40'960'000, 61'440'000, 81'920'000, 122'880'000,
    163'840'000, 245'760'000, 327'680'000, 491'520'000};

constexpr uint64_t rnr_delay_ns(uint8_t code) { return kRnrDelayNs[code & 0x1f]; }

}  // namespace mr::transport
