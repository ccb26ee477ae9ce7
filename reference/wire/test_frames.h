// File: test_frames.h
//
// Known frames for the codec tests, each with a comment that decodes it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mr::wire::testing {

inline std::vector<uint8_t> from_hex(std::string_view s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(s.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// Ether 02:..:01 -> 02:..:02 / IP 10.0.0.1 -> 10.0.0.2 tos 0x6a / UDP 0xc123 -> 4791 /
// BTH RC_ACKNOWLEDGE dqpn 0x12 psn 0x100 / AETH syndrome 0x1f msn 1 / ICRC 75b3aa37
inline std::vector<uint8_t> rc_ack_ipv4() {
  return from_hex(
      "020000000002020000000001080045"
      "6a003000004000401126510a0000010a000002c12312b7001c00001100ffff00000012000001001f000001"
      "75b3aa37");
}

// Ether / IPv6 2001:db8::1 -> ::2 tc 0x6a fl 0x12345 / UDP / BTH RC_SEND_ONLY ackreq
// padcount 3 psn 0xabcd / "hello" + 3 pad / ICRC d1befc75
inline std::vector<uint8_t> rc_send_only_ipv6() {
  return from_hex(
      "02000000000202000000000186dd"
      "66a123450020114020010db800000000000000000000000120010db8000000000000000000000002"
      "d00d12b7002000000430ffff000000348000abcd68656c6c6f000000d1befc75");
}

// A real ConnectX-4 Lx CNP (Scapy's roce.uts): BTH 0x81 becn dqpn 0x118, 16 zero bytes.
inline std::vector<uint8_t> cx4_cnp() {
  return from_hex(
      "e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b70028000081"
      "00ffff40000118000000000000000000000000000000000000000082fd002a");
}

}  // namespace mr::wire::testing
